// workerd's CPU time per request (user + system, every isolate of the stack: gateway, region, D1)
// for REST `GET /api/v1/workspaces` and the MCP section's `tools/call workspaces_list`, sent one at a
// time in alternating batches, and their ratio. On a shared machine CPU time moves far less than
// latency (a request waiting for a core costs no CPU), so this ratio is the MCP section's p50 ratio
// at c=1 as a quiet machine would show it, to within the time spent outside workerd. Not a section of
// the benchmark: run it on its own after a bench build,
//   bash scripts/toolchain.sh node bench/cpu-per-request.mjs [--requests=800] [--rounds=5]
import { readdirSync, readFileSync } from "node:fs";
import { startStack } from "../scripts/lib/stack.mjs";
import { recordedToolCall } from "./mcp.mjs";

const argument = (name, fallback) => {
  const found = process.argv.find((arg) => arg.startsWith(`--${name}=`));
  return Number(found ? found.slice(name.length + 3) : fallback);
};
const requests = argument("requests", 800);
const rounds = argument("rounds", 5);

/** Fields of /proc/<pid>/stat after the command name (which may hold spaces): ppid is [1], utime [11], stime [12]. */
const statOf = (pid) => {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
};
/** This process's descendants: miniflare's workerd. */
function descendants(pid) {
  const found = [];
  for (const entry of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      if (Number(statOf(entry)[1]) === pid) found.push(Number(entry), ...descendants(Number(entry)));
    } catch {
      // A process that ended while listed.
    }
  }
  return found;
}

const stack = await startStack({ gatewayVars: { RATE_LIMIT_FACTOR: "1000", RATE_LIMITS_BENCH_SWITCH: "true" } });
const auth = { authorization: `Bearer ${stack.demo.organizations[0].users[0].apiKey}` };
const mcpUrl = new URL("/mcp", stack.url).href;
const surfaces = {
  rest: { url: new URL("/api/v1/workspaces", stack.url).href, method: "GET", headers: auth },
  mcp: { url: mcpUrl, ...(await recordedToolCall(mcpUrl, auth, "workspaces_list")).request },
};
const workerd = descendants(process.pid);
const clockTicksPerMs = 100 / 1000;
const cpuMs = () => workerd.reduce((sum, pid) => sum + Number(statOf(pid)[11]) + Number(statOf(pid)[12]), 0) / clockTicksPerMs;

async function send({ url, ...init }, count) {
  for (let i = 0; i < count; i++) {
    const response = await fetch(url, init);
    if (response.status !== 200) throw new Error(`${url}: status ${response.status}`);
    await response.arrayBuffer();
  }
}

// Warm both (key cache, leases, compiled statements, the MCP tool) before counting.
for (const surface of Object.values(surfaces)) await send(surface, 300);
const totals = { rest: 0, mcp: 0 };
for (let round = 1; round <= rounds; round++) {
  const line = [];
  for (const [name, surface] of Object.entries(surfaces)) {
    const before = cpuMs();
    await send(surface, requests);
    const perRequest = (cpuMs() - before) / requests;
    totals[name] += perRequest;
    line.push(`${name} ${perRequest.toFixed(3)} ms`);
  }
  console.log(`round ${round}: workerd CPU per request ${line.join(", ")}`);
}
console.log(
  `workerd CPU per request, mean of ${rounds} rounds of ${requests}: REST ${(totals.rest / rounds).toFixed(3)} ms, MCP ${(totals.mcp / rounds).toFixed(3)} ms, MCP / REST ${(totals.mcp / totals.rest).toFixed(2)}`,
);
await stack.mf.dispose();
