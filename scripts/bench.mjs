// Benchmarks on the Workers runtime itself (miniflare's Node API with the built bundles, not
// `wrangler dev`, whose proxy caps throughput here). Every figure is compared with a baseline
// measured in the same run: a bare Hono handler doing one D1 read by key.
//   npm run bench            all scenarios
//   npm run bench -- --quick shorter runs (for a smoke test)
//   npm run bench -- --only=pipeline|records|webhooks|oauth|inbox|meetings|mcp|catalogue|bulk|scale   one scenario
//   npm run bench -- --only=drain                                                               the outbox drain alone
//   npm run bench -- --only=chaos                                                               the drain with lanes restarted every 200 ms
//   npm run bench -- --only=records --records=1000000                                          the records at another size
//   npm run bench -- --only=events [--events-million]                                          the events feed and replay
//   npm run bench -- --only=events --events-replay=10000 [--inspector-port=9229]                the replay alone [with CPU profiles]
//   npm run bench -- --only=coldstart                                                          a fresh gateway isolate's startup and first requests
//   npm run bench -- --only=bulk                                                               batch writes, search, tag filters
// Each section is a module of its own under bench/; this file builds the bundles, starts the stack
// and runs the sections asked for.
import { build } from "esbuild";
import { bulkSection } from "../bench/bulk.mjs";
import { catalogueSection } from "../bench/catalogue.mjs";
import { chaosSection, restarterWorker } from "../bench/chaos.mjs";
import { coldstartSection } from "../bench/coldstart.mjs";
import { eventsSection } from "../bench/events.mjs";
import { inboxSection } from "../bench/inbox.mjs";
import { mcpSection } from "../bench/mcp.mjs";
import { meetingsSection } from "../bench/meetings.mjs";
import { oauthSection } from "../bench/oauth.mjs";
import { pipelineSection } from "../bench/pipeline.mjs";
import { recordCountOf, recordsSection } from "../bench/records.mjs";
import { scaleSection } from "../bench/scale.mjs";
import { drainSection, webhooksSection } from "../bench/webhooks.mjs";
import { buildDir, buildWorkers, startStack } from "./lib/stack.mjs";

const quick = process.argv.includes("--quick");
const options = {
  quick,
  durationMs: quick ? 3_000 : 10_000,
  recordCount: recordCountOf(process.argv, quick),
  eventsMillion: process.argv.includes("--events-million"),
  // The events section's replay alone (no feed), of this many events: `--events-replay=10000`.
  eventsReplay: Number(process.argv.find((arg) => arg.startsWith("--events-replay="))?.split("=")[1] ?? 0),
  // workerd's inspector on this port: the sections that profile (events) write CPU profiles.
  inspectorPort: Number(process.argv.find((arg) => arg.startsWith("--inspector-port="))?.split("=")[1] ?? 0) || undefined,
};
// The budgets are raised so that none refuses: the benchmark measures admission, with headroom.
// The switch lets scenario (d) turn the limiter off per request (refused outside the local stack).
const gatewayVars = { RATE_LIMIT_FACTOR: "1000", RATE_LIMITS_BENCH_SWITCH: "true" };

async function buildBundles() {
  buildWorkers();
  await build({
    entryPoints: ["bench/bare-worker.ts"],
    bundle: true,
    format: "esm",
    external: ["cloudflare:*"],
    outfile: `${buildDir}/bare/index.js`,
    logLevel: "warning",
  });
  // The inbox seed runs in Node, with the domain's own drizzle tables and search-row builder.
  await build({
    entryPoints: ["bench/inbox-seed.ts"],
    bundle: true,
    format: "esm",
    platform: "node",
    outfile: `${buildDir}/bench-inbox/seed.mjs`,
    logLevel: "warning",
  });
  // The scale simulation's organizations, placed by the gateway's own rule.
  await build({
    entryPoints: ["bench/tenants.ts"],
    bundle: true,
    format: "esm",
    platform: "node",
    outfile: `${buildDir}/bench-scale/tenants.mjs`,
    logLevel: "warning",
  });
}

/** The sections in the order a whole run takes them; those marked `alone` run only when named. */
const sections = [
  { name: "pipeline", run: pipelineSection },
  { name: "records", run: recordsSection },
  { name: "webhooks", run: webhooksSection },
  { name: "drain", run: drainSection, alone: true },
  { name: "chaos", run: chaosSection, alone: true },
  { name: "oauth", run: oauthSection },
  { name: "inbox", run: inboxSection },
  { name: "meetings", run: meetingsSection },
  { name: "mcp", run: mcpSection },
  { name: "catalogue", run: catalogueSection },
  { name: "bulk", run: bulkSection },
  { name: "events", run: eventsSection },
  { name: "scale", run: scaleSection },
  // Last: it restarts the stack's isolates.
  { name: "coldstart", run: coldstartSection },
];
const only = process.argv.find((arg) => arg.startsWith("--only="))?.slice("--only=".length);
if (only && !sections.some((section) => section.name === only))
  throw new Error(`--only=${only}: no such section (${sections.map((section) => section.name).join(", ")})`);

await buildBundles();
// Loopback receivers, and a burst limit raised like the rate limits: the benchmark measures delivery.
const stack = await startStack({
  gatewayVars,
  regionVars: { WEBHOOKS_ALLOW_LOOPBACK: "true", WEBHOOK_BURST_FACTOR: "100" },
  triggerHandlers: true,
  extraWorkers: only === "chaos" ? [restarterWorker] : [],
  inspectorPort: options.inspectorPort,
});
const auth = { authorization: `Bearer ${stack.demo.organizations[0].users[0].apiKey}` };
for (const section of sections) {
  if (only ? section.name === only : !section.alone) await section.run(stack, auth, options);
}
await stack.mf.dispose();
