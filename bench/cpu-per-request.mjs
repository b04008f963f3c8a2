// workerd's CPU time a request, read from /proc (user + system time of each candidate's workerd
// process) over sequential requests in alternating rounds. CPU time, unlike latency, hardly moves
// with a shared machine's load (a request waiting for a core costs none), so it shows what one
// surface costs over another when wall-clock figures cannot.
//   --compare=pipeline (default): (a) the bare one-read handler, (e) the two-Worker floor, (b) the
//     full pipeline and its parts (the limiter, the gateway alone).
//   --compare=mcp: REST `GET /workspaces` against the MCP section's `tools/call workspaces_list`,
//     the MCP section's p50 ratio at c=1 as a quiet machine would show it.
// Not a section of the benchmark: run it on its own after a bench build,
//   bash scripts/toolchain.sh node bench/cpu-per-request.mjs [--compare=pipeline|mcp] [--requests=500] [--rounds=4]
import { readdirSync, readFileSync } from "node:fs";
import http from "node:http";
import { buildDir, startStack } from "../scripts/lib/stack.mjs";
import { startBare } from "./bare.mjs";
import { startFloor } from "./floor.mjs";
import { recordedToolCall } from "./mcp.mjs";

const argument = (name, fallback) => process.argv.find((arg) => arg.startsWith(`--${name}=`))?.split("=")[1] ?? fallback;
const requests = Number(argument("requests", 500));
const rounds = Number(argument("rounds", 4));
const comparison = argument("compare", "pipeline");
const ticksPerMs = 100 / 1000; // USER_HZ: /proc counts CPU time in hundredths of a second

/** The workerd processes this Node process has started (each Miniflare runs one). */
const workerdPids = () =>
  readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/comm`, "utf8").trim() === "workerd" && statFields(pid)[1] === String(process.pid);
      } catch {
        return false;
      }
    });
/** /proc/<pid>/stat's fields after the command name: the 2nd is the parent, the 12th and 13th user and system time. */
const statFields = (pid) => {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
};
const cpuTicks = (pid) => {
  const fields = statFields(pid);
  return Number(fields[11]) + Number(fields[12]);
};
/** Starts a Miniflare and names the workerd process it started. */
async function started(start) {
  const before = new Set(workerdPids());
  const result = await start();
  const [pid] = workerdPids().filter((candidate) => !before.has(candidate));
  return { ...result, pid };
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
/** Sends one request and checks its status; the body is read and dropped. */
const send = ({ url, method = "GET", headers = {}, body, status = 200 }) =>
  new Promise((resolve, reject) => {
    const request = http.request(url, { agent, method, headers }, (response) => {
      response.resume();
      response.on("end", () =>
        response.statusCode === status ? resolve() : reject(new Error(`${url}: ${response.statusCode}`)),
      );
    });
    request.on("error", reject);
    request.end(body);
  });

const gatewayVars = { RATE_LIMIT_FACTOR: "1000", RATE_LIMITS_BENCH_SWITCH: "true" };
const apiKey = (stack) => ({ authorization: `Bearer ${stack.demo.organizations[0].users[0].apiKey}` });

/** (a), (e) and (b) with the pipeline's parts; the summary reads the medians in this order. */
async function pipelineCandidates() {
  const stack = await started(() => startStack({ gatewayVars }));
  const bare = await started(() => startBare());
  const floor = await started(() => startFloor(buildDir));
  const pipeline = { pid: stack.pid, url: new URL("/api/v1/workspaces", stack.url).href, headers: apiKey(stack) };
  const candidates = {
    "(a) bare": { pid: bare.pid, url: bare.url },
    "(e) floor": { pid: floor.pid, url: floor.url },
    "(b) pipeline": pipeline,
    "(d) pipeline, limiter off": { ...pipeline, headers: { ...pipeline.headers, "x-bench-rate-limits": "off" } },
    // The gateway's part alone, no region: its app and log line for an unknown route; then also the
    // credential, its booking and an error's rendering (a key naming another organization: 400).
    "(g) gateway, unknown route (404)": { pid: stack.pid, url: new URL("/api/v1/no-such-route", stack.url).href, status: 404 },
    "(h) gateway, authenticated, refused (400)": {
      ...pipeline,
      headers: { ...pipeline.headers, "x-service-organization-id": stack.demo.organizations[1].id },
      status: 400,
    },
  };
  const summary = ([a, e, b, d, g, h]) =>
    `pipeline over floor (b - e): ${(b - e).toFixed(3)} ms a request; floor over bare (e - a): ${(e - a).toFixed(3)} ms; b/e ${(b / e).toFixed(2)}; the limiter (b - d): ${(b - d).toFixed(3)} ms
the gateway alone, no limiter and no region: its app and log line (g) ${g.toFixed(3)} ms, with the credential and booking (h) ${h.toFixed(3)} ms; forwarding and the region, (d - h): ${(d - h).toFixed(3)} ms`;
  return { candidates, summary, stacks: [stack, bare, floor] };
}

/** REST and MCP against one stack: the gateway, the region and D1 all run in its one workerd. */
async function mcpCandidates() {
  const stack = await started(() => startStack({ gatewayVars }));
  const mcpUrl = new URL("/mcp", stack.url).href;
  const { request } = await recordedToolCall(mcpUrl, apiKey(stack), "workspaces_list");
  const candidates = {
    "REST GET /workspaces": { pid: stack.pid, url: new URL("/api/v1/workspaces", stack.url).href, headers: apiKey(stack) },
    "MCP tools/call workspaces_list": { pid: stack.pid, url: mcpUrl, ...request },
  };
  const summary = ([rest, mcp]) => `MCP - REST: ${(mcp - rest).toFixed(3)} ms a request; MCP / REST ${(mcp / rest).toFixed(2)}`;
  return { candidates, summary, stacks: [stack] };
}

const { candidates, summary, stacks } = comparison === "mcp" ? await mcpCandidates() : await pipelineCandidates();
const perRequest = Object.fromEntries(Object.keys(candidates).map((name) => [name, []]));
for (let round = 0; round <= rounds; round++) {
  for (const [name, { pid, ...request }] of Object.entries(candidates)) {
    for (let i = 0; i < 50; i++) await send(request); // warm, and let the previous candidate's work settle
    const before = cpuTicks(pid);
    for (let i = 0; i < requests; i++) await send(request);
    // Round 0 warms every isolate (key cache, leases, compiled statements) and is not counted.
    if (round > 0) perRequest[name].push((cpuTicks(pid) - before) / ticksPerMs / requests);
  }
}
const median = (values) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)];
for (const [name, values] of Object.entries(perRequest))
  console.log(
    `${name}: ${median(values).toFixed(3)} ms of workerd CPU a request (rounds: ${values.map((v) => v.toFixed(2)).join(", ")})`,
  );
console.log(summary(Object.values(perRequest).map(median)));
agent.destroy();
for (const stack of stacks) await stack.mf.dispose();
