// Cold starts (issue 30 item 7): what a fresh gateway isolate pays before and on its first request.
//   - script evaluation: the built gateway bundle imported in a fresh V8 (a Node process each time,
//     `cloudflare:workers` stubbed; the bundle's global scope is all that runs), median of runs;
//   - first request: the stack restarted (fresh isolates, its data kept), then one REST
//     `GET /workspaces`, one MCP `tools/call`, or one `GET /openapi.json`, against the same request warm.
// Cloudflare's documented Worker startup limit is 1 second (developers.cloudflare.com/workers/platform/limits,
// "Worker startup time"); the target is a quarter of it.
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { gatewayBundle } from "../scripts/lib/stack.mjs";
import { recordedToolCall } from "./mcp.mjs";

const startupLimitMs = 1000;
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** Median milliseconds of `script` (an ES module body that prints a duration) in `runs` fresh Node processes. */
const inFreshV8 = (script, runs) =>
  median(
    Array.from({ length: runs }, () =>
      Number(execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" }).trim()),
    ),
  );

/** Milliseconds to import the gateway bundle in a fresh V8, and its bundled OpenAPI template's share: loading it, parsing it. */
function scriptEvaluation(runs) {
  const source = readFileSync(gatewayBundle, "utf8").replace(
    'from "cloudflare:workers"',
    `from "data:text/javascript,export class DurableObject {}"`,
  );
  mkdirSync(".bench", { recursive: true });
  const file = `${process.cwd()}/.bench/gateway-startup.mjs`;
  writeFileSync(file, source);
  const importing = (path) =>
    `const started = performance.now(); await import(${JSON.stringify(path)}); console.log(performance.now() - started);`;
  const template = `${process.cwd()}/workers/gateway/src/generated/openapi-template.js`;
  const parsing = `const { openApiTemplateJson } = await import(${JSON.stringify(template)}); const started = performance.now(); JSON.parse(openApiTemplateJson); console.log(performance.now() - started);`;
  return {
    ms: inFreshV8(importing(file), runs),
    templateMs: inFreshV8(importing(template), runs),
    templateParseMs: inFreshV8(parsing, runs),
    bytes: source.length,
    gzipped: gzipSync(source).length,
  };
}

async function timed(url, init) {
  const started = performance.now();
  const response = await fetch(url, init);
  await response.arrayBuffer();
  if (!response.ok) throw new Error(`${url}: ${response.status}`);
  return performance.now() - started;
}

/** The first request's latency in fresh isolates (`runs` restarts), and the same request warm (median of 20). */
async function firstRequest(stack, path, init, runs) {
  const first = [];
  for (let run = 0; run < runs; run++) {
    await stack.mf.setOptions(stack.options);
    const url = new URL(path, await stack.mf.ready).href;
    first.push(await timed(url, init()));
  }
  const url = new URL(path, await stack.mf.ready).href;
  const warm = [];
  for (let run = 0; run < 20; run++) warm.push(await timed(url, init()));
  return { first: median(first), warm: median(warm) };
}

export async function coldstartSection(stack, auth, { quick }) {
  const runs = quick ? 3 : 7;
  const evaluation = scriptEvaluation(runs);
  const rest = await firstRequest(stack, "/api/v1/workspaces", () => ({ headers: auth }), runs);
  const { request } = await recordedToolCall(new URL("/mcp", await stack.mf.ready).href, auth, "workspaces_list");
  const mcp = await firstRequest(stack, "/mcp", () => ({ method: "POST", headers: request.headers, body: request.body }), runs);
  const document = await firstRequest(stack, "/api/v1/openapi.json", () => ({}), runs);
  const row = (name, figures) =>
    `| ${name.padEnd(44)} | ${figures.first.toFixed(1).padStart(10)} | ${figures.warm.toFixed(1).padStart(9)} |`;
  console.log(`
Cold starts (medians of ${runs} fresh isolates, ${new Date().toISOString()})

gateway script evaluation (fresh V8, bundle ${Math.round(evaluation.bytes / 1024)} KiB, ${Math.round(evaluation.gzipped / 1024)} KiB gzipped): ${evaluation.ms.toFixed(1)} ms
  = ${((100 * evaluation.ms) / startupLimitMs).toFixed(1)}% of Cloudflare's Worker startup limit (${startupLimitMs} ms; target <= 25%)
  of which loading the bundled OpenAPI template: ${evaluation.templateMs.toFixed(1)} ms; parsing it, on first use (not at startup): ${evaluation.templateParseMs.toFixed(1)} ms

| ${"request".padEnd(44)} | first (ms) | warm (ms) |
|${"-".repeat(46)}|------------|-----------|
${row("REST GET /workspaces", rest)}
${row("MCP tools/call workspaces_list", mcp)}
${row("GET /openapi.json", document)}
`);
}
