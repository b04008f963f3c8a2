// Benchmarks on the Workers runtime itself (miniflare's Node API with the built bundles, not
// `wrangler dev`, whose proxy caps throughput here). Every figure is compared with a baseline
// measured in the same run: a bare Hono handler doing one D1 read by key.
//   npm run bench            all scenarios
//   npm run bench -- --quick shorter runs (for a smoke test)
import { build } from "esbuild";
import { convertV4MiniflareOptions, Miniflare } from "miniflare";
import { load } from "../bench/load.mjs";
import { buildDir, buildWorkers, startStack } from "./lib/stack.mjs";

const quick = process.argv.includes("--quick");
const durationMs = quick ? 3_000 : 10_000;
// Every window is still asked on every request; the budgets are only raised so none refuses.
const gatewayVars = { RATE_LIMIT_FACTOR: "1000" };

function buildBundles() {
  buildWorkers();
  return build({
    entryPoints: ["bench/bare-worker.ts"],
    bundle: true,
    format: "esm",
    external: ["cloudflare:*"],
    outfile: `${buildDir}/bare/index.js`,
    logLevel: "warning",
  });
}

async function startBare() {
  const mf = new Miniflare(
    convertV4MiniflareOptions({
      host: "127.0.0.1",
      port: 0,
      workers: [
        {
          name: "bare",
          modules: true,
          scriptPath: `${buildDir}/bare/index.js`,
          compatibilityDate: "2026-11-01",
          d1Databases: { DB: "bench-bare" },
          durableObjects: { COUNTER: { className: "Counter", useSQLite: true } },
        },
      ],
    }),
  );
  const url = await mf.ready;
  const db = await mf.getD1Database("DB");
  await db.exec("create table if not exists items (id text primary key, name text not null, created_at integer not null)");
  await db.batch(
    Array.from({ length: 1000 }, (_, i) =>
      db.prepare("insert or ignore into items values (?, ?, ?)").bind(`item_${i}`, `Item ${i}`, Date.now()),
    ),
  );
  return { mf, url: new URL("/items/item_500", url).href, countedUrl: new URL("/counted/items/item_500", url).href };
}

const ms = (value) => value.toFixed(2).padStart(8);
const row = (name, figures) =>
  `| ${name.padEnd(44)} | ${String(Math.round(figures.rps)).padStart(7)} | ${ms(figures.p50)} | ${ms(figures.p99)} |`;

await buildBundles();
const bare = await startBare();
const stack = await startStack({ gatewayVars });
const alice = stack.demo.organizations[0].users[0].apiKey;
const pipelineUrl = new URL("/api/v1/workspaces", stack.url).href;
const auth = { authorization: `Bearer ${alice}` };

console.log(`\nGateway pipeline vs bare handler (${durationMs / 1000} s per figure, ${new Date().toISOString()})\n`);
console.log("| scenario                                     |     rps | p50 (ms) | p99 (ms) |");
console.log("|----------------------------------------------|---------|----------|----------|");
const figures = {};
for (const connections of [1, 32]) {
  figures[`bare${connections}`] = await load(bare.url, { connections, durationMs });
  console.log(row(`(a) bare Hono + 1 D1 read, c=${connections}`, figures[`bare${connections}`]));
  figures[`full${connections}`] = await load(pipelineUrl, { connections, durationMs, headers: auth });
  console.log(row(`(b) full pipeline GET /workspaces, c=${connections}`, figures[`full${connections}`]));
  figures[`counted${connections}`] = await load(bare.countedUrl, { connections, durationMs });
  console.log(row(`(c) = (a) + 5 parallel in-memory DO calls, c=${connections}`, figures[`counted${connections}`]));
}
console.log(`
ratio b/a throughput at c=32: ${(figures.full32.rps / figures.bare32.rps).toFixed(2)} (target >= 0.6)
ratio c/a throughput at c=32: ${(figures.counted32.rps / figures.bare32.rps).toFixed(2)} (five Durable Object calls alone, no limiter logic)
added p50 at c=1: ${(figures.full1.p50 - figures.bare1.p50).toFixed(2)} ms (target <= 1.5 ms)
`);

await bare.mf.dispose();
await stack.mf.dispose();
