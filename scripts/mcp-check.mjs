// The MCP endpoint as outside clients see it, against the dev stack (scripts/dev.mjs) started on a
// free port beside any stack on 8787, with its own state, removed afterwards. Run by `pnpm run check`.
//   1. The MCP Inspector CLI lists the tools with alice's key and `--strict`: no schema finding at
//      all (warnings included), and one tool for every operation the OpenAPI document marks with
//      `x-mcp-tool`; then it calls `crm_objects_list`.
//   2. The MCP conformance suite (@modelcontextprotocol/conformance), every active server scenario,
//      against scripts/mcp-conformance-expected-failures.yml. The suite sends no credentials and has
//      no option to, so it talks to the endpoint through a local proxy that adds alice's key as the
//      `Authorization` header, as any MCP client configured with a key does; the stack runs with
//      its authentication unchanged (a request without a key is 401 there, checked below).
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { createServer, request as httpRequest } from "node:http";
import { createServer as createTcpServer } from "node:net";

const expectedFailures = "scripts/mcp-conformance-expected-failures.yml";
const conformanceResults = ".artifacts/mcp-conformance";

/** A free port between 20000 and 29000 (8787 and its neighbours belong to the developer's own stack). */
async function freePort() {
  for (;;) {
    const port = 20000 + Math.floor(Math.random() * 9000);
    const free = await new Promise((done) => {
      const probe = createTcpServer();
      probe.once("error", () => done(false));
      probe.listen(port, "127.0.0.1", () => probe.close(() => done(true)));
    });
    if (free) return port;
  }
}

/** Runs a command to its end; its output is kept and echoed on failure. */
function run(command, args) {
  return new Promise((done) => {
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    child.on("close", (code) => done({ code, stdout, stderr }));
  });
}

/** Starts scripts/dev.mjs on `port` in a process group of its own (wrangler and workerd stop with it). */
async function startDevStack(port) {
  const stack = spawn("node", ["scripts/dev.mjs", `--port=${port}`], { detached: true, stdio: ["ignore", "pipe", "inherit"] });
  let log = "";
  stack.stdout.on("data", (chunk) => {
    log += chunk;
  });
  const demoFile = `.dev/demo-${port}.json`;
  const deadline = Date.now() + 180_000;
  while (!existsSync(demoFile)) {
    if (stack.exitCode !== null) throw new Error(`the dev stack exited with ${stack.exitCode}:\n${log}`);
    if (Date.now() > deadline) throw new Error(`the dev stack did not start within 180 s:\n${log}`);
    await new Promise((done) => setTimeout(done, 500));
  }
  // dev.mjs writes the file in one call once the seed answered; read it when the write has landed.
  await new Promise((done) => setTimeout(done, 200));
  const demo = JSON.parse(readFileSync(demoFile, "utf8"));
  const stop = () => {
    try {
      process.kill(-stack.pid, "SIGTERM");
    } catch {
      // already gone
    }
    rmSync(demoFile, { force: true });
    rmSync(`.wrangler/state-${port}`, { recursive: true, force: true });
  };
  return { demo, stop, origin: `http://127.0.0.1:${port}` };
}

/**
 * Forwards every request to the stack as it came (method, path, Host, Origin, body, streamed both
 * ways) and adds `Authorization: Bearer <key>` when the client sent none.
 */
async function startKeyProxy(stackPort, key) {
  const proxy = createServer((incoming, outgoing) => {
    const headers = { ...incoming.headers };
    headers.authorization ??= `Bearer ${key}`;
    const upstream = httpRequest(
      { host: "127.0.0.1", port: stackPort, method: incoming.method, path: incoming.url, headers },
      (response) => {
        outgoing.writeHead(response.statusCode ?? 502, response.headers);
        response.pipe(outgoing);
      },
    );
    upstream.on("error", (error) => outgoing.destroy(error));
    incoming.pipe(upstream);
  });
  const port = await freePort();
  await new Promise((done) => proxy.listen(port, "127.0.0.1", done));
  return { url: `http://127.0.0.1:${port}/mcp`, close: () => proxy.close() };
}

const failures = [];
const check = (condition, message) => {
  if (!condition) failures.push(message);
};

async function inspectorChecks(origin, demo) {
  const alice = demo.organizations[0].users[0];
  const sales = demo.organizations[0].workspaces[0];
  const inspector = (...args) =>
    run("mcp-inspector", [
      "--cli",
      `${origin}/mcp`,
      "--transport",
      "http",
      "--header",
      `Authorization: Bearer ${alice.apiKey}`,
      "--format",
      "json",
      ...args,
    ]);

  const listed = await inspector("--method", "tools/list", "--strict");
  check(listed.code === 0, `mcp-inspector tools/list --strict exited with ${listed.code}:\n${listed.stderr}`);
  check(listed.stderr.trim() === "", `mcp-inspector tools/list --strict reported:\n${listed.stderr}`);
  if (listed.code === 0) {
    const { result, schemaFindings } = JSON.parse(listed.stdout);
    check(!schemaFindings, `tool schema findings:\n${JSON.stringify(schemaFindings, null, 2)}`);
    const tools = new Set(result.tools.map((tool) => tool.name));
    const document = await (await fetch(`${origin}/api/v1/openapi.json`)).json();
    const routeTools = Object.values(document.paths)
      .flatMap((item) => Object.values(item))
      .map((operation) => operation["x-mcp-tool"])
      .filter(Boolean);
    const missing = routeTools.filter((name) => !tools.has(name));
    check(missing.length === 0, `routes without their tool in tools/list: ${missing.join(", ")}`);
    console.log(
      `mcp-inspector tools/list --strict: ${tools.size} tools (${routeTools.length} routes marked x-mcp-tool, ${tools.size - routeTools.length} utility), no schema finding`,
    );
  }

  const called = await inspector(
    "--method",
    "tools/call",
    "--tool-name",
    "crm_objects_list",
    "--tool-arg",
    `workspaceId=${sales.id}`,
  );
  check(called.code === 0, `mcp-inspector tools/call crm_objects_list exited with ${called.code}:\n${called.stderr}`);
  if (called.code === 0) {
    const { result } = JSON.parse(called.stdout);
    const objects = result.structuredContent?.objects ?? result.structuredContent?.data;
    check(Array.isArray(objects) && objects.length > 0, `crm_objects_list answered ${called.stdout}`);
    console.log(`mcp-inspector tools/call crm_objects_list: ${objects?.length} object types of ${sales.name}`);
  }

  const anonymous = await fetch(`${origin}/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
  });
  check(anonymous.status === 401, `POST /mcp without a key answered ${anonymous.status}, not 401`);
}

async function conformanceChecks(stackPort, demo) {
  const proxy = await startKeyProxy(stackPort, demo.organizations[0].users[0].apiKey);
  try {
    mkdirSync(conformanceResults, { recursive: true });
    const suite = await run("conformance", [
      "server",
      "--url",
      proxy.url,
      "--expected-failures",
      expectedFailures,
      "--output-dir",
      conformanceResults,
    ]);
    check(suite.code === 0, `the conformance suite failed (exit ${suite.code}):\n${suite.stdout}\n${suite.stderr}`);
    console.log(suite.stdout.trim().split("\n").slice(-12).join("\n"));
  } finally {
    proxy.close();
  }
}

const port = await freePort();
const stack = await startDevStack(port);
try {
  await inspectorChecks(stack.origin, stack.demo);
  await conformanceChecks(port, stack.demo);
} finally {
  stack.stop();
}
if (failures.length > 0) {
  console.error(`\nMCP checks failed:\n\n${failures.join("\n\n")}`);
  process.exit(1);
}
console.log("MCP checks passed");
