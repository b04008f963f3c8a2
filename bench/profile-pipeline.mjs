// CPU profiles of the pipeline's two isolates (the gateway and the us region) for the benchmark's
// request, `GET /api/v1/workspaces` with alice's key (or, with `--surface=mcp`, the MCP section's
// `tools/call workspaces_list`; with `--surface=record`, `GET /records/{id}` of a demo record; with `--surface=query`, the records benchmark's query over
// 20 000 deals), through workerd's inspector: self and inclusive time per function,
// as shares of each isolate's sampled CPU. `--surface=floor` profiles the two-Worker floor's
// isolates instead (bench/floor.mjs: a bare gateway forwarding to the bare one-read handler), what
// the pipeline's are read against. Not a section of the benchmark (it measures where time goes, not
// how fast): run it on its own after a bench build,
//   bash scripts/toolchain.sh node bench/profile-pipeline.mjs [--surface=rest|mcp|record|query|floor] [--requests=3000] [--connections=1] [--top=30]
import { buildDir, startStack } from "../scripts/lib/stack.mjs";
import { startFloor } from "./floor.mjs";
import { load } from "./load.mjs";
import { recordedToolCall } from "./mcp.mjs";
import { inspectorSession } from "./profile.mjs";
import { seedDeals } from "./records.mjs";

const argument = (name, fallback) => {
  const found = process.argv.find((arg) => arg.startsWith(`--${name}=`));
  return found ? found.slice(name.length + 3) : fallback;
};
const requests = Number(argument("requests", "3000"));
const connections = Number(argument("connections", "1"));
const top = Number(argument("top", "30"));
const surface = argument("surface", "rest");
const inspectorPort = 9230 + Math.floor(Math.random() * 500);

/**
 * Self and inclusive sampled time per function (by name and place), over the samples whose top frame
 * is the isolate's own JavaScript. workerd runs every isolate on one thread, so a sample taken while
 * another isolate (the other Worker, D1's, a Durable Object's) runs lands on a native frame of this
 * one (`fetch`, `(program)`, the root): those are counted apart, as `elsewhere`, not as this
 * isolate's work.
 */
function summarize(profile) {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const label = (node) => {
    const { functionName, url, lineNumber } = node.callFrame;
    const file = url ? url.split("/").at(-1) : "";
    return `${functionName || "(anonymous)"} ${file}:${lineNumber + 1}`;
  };
  const self = new Map();
  const inclusive = new Map();
  const deltas = profile.timeDeltas;
  const natives = new Map();
  let own = 0;
  let gc = 0;
  let elsewhere = 0;
  profile.samples.forEach((sample, i) => {
    const ms = (deltas[i + 1] ?? 0) / 1000;
    const node = nodes.get(sample);
    const { functionName, url } = node.callFrame;
    if (functionName === "(garbage collector)") gc += ms;
    if (!url) {
      if (functionName === "(garbage collector)") return;
      elsewhere += ms;
      // A named native (`sign`, `fetch`, `Headers`): this isolate's own call, or one whose callee runs elsewhere.
      if (functionName && !functionName.startsWith("(")) natives.set(functionName, (natives.get(functionName) ?? 0) + ms);
      return;
    }
    own += ms;
    self.set(label(node), (self.get(label(node)) ?? 0) + ms);
    const seen = new Set();
    for (let id = sample; id !== undefined; id = parent.get(id)) {
      const name = label(nodes.get(id));
      if (seen.has(name)) continue;
      seen.add(name);
      inclusive.set(name, (inclusive.get(name) ?? 0) + ms);
    }
  });
  return { self, inclusive, natives, own, gc, elsewhere };
}

function report(name, { self, inclusive, natives, own, gc, elsewhere }) {
  const rows = (map) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([fn, ms]) => `  ${((100 * ms) / own).toFixed(1).padStart(5)} %  ${(ms / requests).toFixed(4)} ms/req  ${fn}`)
      .join("\n");
  console.log(
    `\n== ${name}: own JavaScript ${(own / requests).toFixed(3)} ms a request, GC ${(gc / requests).toFixed(3)}, native or elsewhere ${(elsewhere / requests).toFixed(3)}`,
  );
  console.log(`-- self (share of own JavaScript)\n${rows(self)}`);
  console.log(`-- inclusive\n${rows(inclusive)}`);
  const named = [...natives].sort((a, b) => b[1] - a[1]).slice(0, 12);
  console.log(
    `-- named natives (of "native or elsewhere")\n${named.map(([fn, ms]) => `  ${(ms / requests).toFixed(4)} ms/req  ${fn}`).join("\n")}`,
  );
}

/** `GET /records/{id}` of the demo's first record in its first workspace (`--surface=record`). */
async function demoRecordUrl(stack, auth) {
  const api = (path) => fetch(new URL(`/api/v1${path}`, stack.url), { headers: auth }).then((response) => response.json());
  const { objects } = await api(`/crm/objects?workspaceId=${stack.demo.organizations[0].workspaces[0].id}`);
  for (const object of objects) {
    const [record] = (await api(`/records?objectTypeId=${object.id}`)).data;
    if (record) return new URL(`/api/v1/records/${record.id}`, stack.url).href;
  }
  throw new Error("The demo seed has no record");
}

/** The pipeline's stack for a REST or MCP request, or the floor: the request and the two isolates to profile. */
async function target() {
  if (surface === "floor") {
    const floor = await startFloor(buildDir, { inspectorPort });
    return { mf: floor.mf, url: floor.url, init: { method: "GET", headers: {} }, workers: ["floor-gateway", "floor-region"] };
  }
  const stack = await startStack({
    gatewayVars: { RATE_LIMIT_FACTOR: "1000", RATE_LIMITS_BENCH_SWITCH: "true" },
    inspectorPort,
  });
  const auth = { authorization: `Bearer ${stack.demo.organizations[0].users[0].apiKey}` };
  const mcpUrl = new URL("/mcp", stack.url).href;
  if (surface === "query") {
    // The records benchmark's query over 20 000 of its deals (`bench/records.mjs`).
    const { deals, stage, amount } = await seedDeals(stack, auth, 20_000);
    const query = {
      objectTypeId: deals.id,
      filter: { op: "and", conditions: [{ fieldDefinitionId: stage, operator: "eq", value: "won" }] },
      sorts: [{ fieldDefinitionId: amount, direction: "desc" }],
      limit: 50,
    };
    const init = { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: JSON.stringify(query) };
    return { mf: stack.mf, url: new URL("/api/v1/records/query", stack.url).href, init, workers: ["crm-gateway", "crm-api-us"] };
  }
  const { url, ...init } =
    surface === "mcp"
      ? { url: mcpUrl, ...(await recordedToolCall(mcpUrl, auth, "workspaces_list")).request }
      : {
          url: surface === "record" ? await demoRecordUrl(stack, auth) : new URL("/api/v1/workspaces", stack.url).href,
          method: "GET",
          headers: auth,
        };
  return { mf: stack.mf, url, init, workers: ["crm-gateway", "crm-api-us"] };
}

const { mf, url, init, workers } = await target();
const isolates = Object.fromEntries(
  await Promise.all(workers.map(async (worker) => [worker, await inspectorSession(inspectorPort, worker)])),
);
// Warm both isolates (key cache, leases, compiled statements) before sampling.
await load(url, { connections, durationMs: 2_000, ...init });
for (const inspector of Object.values(isolates)) {
  await inspector.send("Profiler.enable");
  await inspector.send("Profiler.setSamplingInterval", { interval: 100 });
  await inspector.send("Profiler.start");
}
const started = performance.now();
let sent = 0;
await Promise.all(
  Array.from({ length: connections }, async () => {
    while (sent < requests) {
      sent++;
      // Uncompressed, as the benchmark's client asks (fetch would ask for gzip, and workerd would compress).
      const response = await fetch(url, { ...init, headers: { ...init.headers, "accept-encoding": "identity" } });
      if (response.status !== 200) throw new Error(`status ${response.status}`);
      await response.arrayBuffer();
    }
  }),
);
console.log(
  `${surface}: ${requests} requests, c=${connections}, in ${(performance.now() - started).toFixed(0)} ms (${buildDir})`,
);
for (const [worker, inspector] of Object.entries(isolates)) {
  const { profile } = await inspector.send("Profiler.stop");
  report(worker, summarize(profile));
  inspector.close();
}
await mf.dispose();
