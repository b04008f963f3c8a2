import { gzipSync } from "node:zlib";
import { build } from "esbuild";
import { buildDir } from "../scripts/lib/stack.mjs";
import { startBare } from "./bare.mjs";
import { load } from "./load.mjs";
import { header, row } from "./report.mjs";

/**
 * The public integrations catalogue and change log: what building the catalogue costs an isolate
 * once (the OpenAPI document and the event schemas generated, in Node's V8 like workerd's), then the
 * served answers against the bare handler and the authenticated pipeline in the same run.
 */
export async function catalogueSection(stack, auth, { durationMs }) {
  const outfile = `${buildDir}/bench-catalogue/contracts.mjs`;
  await build({
    entryPoints: ["packages/contracts/src/index.ts"],
    bundle: true,
    platform: "node",
    format: "esm",
    outfile,
    logLevel: "warning",
  });
  const { openApiDocument, publishedIntegrations } = await import(`${process.cwd()}/${outfile}`);
  // The gateway shares one OpenAPI document per isolate between /openapi.json, the docs and the catalogue.
  const documentMs = [];
  const catalogueMs = [];
  for (let run = 0; run < 20; run++) {
    const origin = `https://bench-${run}.example`;
    let started = performance.now();
    const document = openApiDocument(origin);
    documentMs.push(performance.now() - started);
    started = performance.now();
    publishedIntegrations(origin, document);
    catalogueMs.push(performance.now() - started);
  }
  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)].toFixed(1);
  const api = (path) => new URL(`/api/v1${path}`, stack.url).href;
  const body = await (await fetch(api("/public/integrations/crm"))).arrayBuffer();
  const bare = await startBare();
  console.log(`
Public catalogue: built once per isolate in ${median(catalogueMs)} ms from the OpenAPI document (itself ${median(documentMs)} ms, shared with /openapi.json); medians of 20;
the list is ${Math.round(body.byteLength / 1024)} KiB, ${Math.round(gzipSync(Buffer.from(body)).byteLength / 1024)} KiB gzipped. ${durationMs / 1000} s per figure
`);
  console.log(header);
  const figures = {
    bare: await load(bare.url, { connections: 32, durationMs }),
    list: await load(api("/public/integrations/crm"), { connections: 32, durationMs }),
    changelog: await load(api("/changelog"), { connections: 32, durationMs }),
    workspaces: await load(api("/workspaces"), { connections: 32, durationMs, headers: auth }),
  };
  console.log(row("(a) bare Hono + 1 D1 read, c=32", figures.bare));
  console.log(row("(b) GET /public/integrations/crm (no credential), c=32", figures.list));
  console.log(row("(c) GET /changelog (no credential), c=32", figures.changelog));
  console.log(row("(d) GET /workspaces with an API key, c=32", figures.workspaces));
  console.log(`
ratio b/a throughput: ${(figures.list.rps / figures.bare.rps).toFixed(2)}; b/d: ${(figures.list.rps / figures.workspaces.rps).toFixed(2)}
`);
  await bare.mf.dispose();
}
