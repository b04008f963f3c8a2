import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { startBare } from "./bare.mjs";
import { load } from "./load.mjs";
import { header, row } from "./report.mjs";
import { alternatingRounds } from "./rounds.mjs";

/**
 * The `tools/call` of `name` exactly as the SDK's v2 client sends it at MCP revision 2026-07-28
 * (recorded once from the client, then replayed by the load generator), and its answer checked: a
 * tool error is a 200 too, which the load generator alone would count as a success.
 */
export async function recordedToolCall(mcpUrl, auth, name) {
  let recorded;
  const client = new Client({ name: "bench", version: "1.0.0" }, { versionNegotiation: { mode: "auto" } });
  const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), {
    requestInit: { headers: auth },
    fetch: async (input, init) => {
      const body = typeof init?.body === "string" ? init.body : undefined;
      if (body?.includes('"tools/call"')) recorded = { headers: Object.fromEntries(new Headers(init.headers)), body };
      return fetch(input, init);
    },
  });
  await client.connect(transport);
  const result = await client.callTool({ name, arguments: {} });
  const protocolVersion = transport.protocolVersion;
  await client.close();
  if (result.isError || !result.structuredContent) throw new Error(`${name} answered ${JSON.stringify(result)}`);
  if (!recorded) throw new Error("the client sent no tools/call request");
  return { request: { method: "POST", headers: recorded.headers, body: recorded.body }, protocolVersion };
}

/**
 * `workspaces_list` through `POST /mcp` against `GET /workspaces` with the same key: the MCP
 * endpoint's own cost (Host/Origin checks, authentication, the server and its tool, JSON-RPC) on top
 * of the same pipeline. Diagnostic: `auth_whoami`, the endpoint and the SDK with a tool that reads
 * nothing. The three alternate in short rounds as in the OAuth section; the bare Hono handler is
 * measured before them, the baseline every section is read against.
 */
export async function mcpSection(stack, auth, { durationMs }) {
  const restUrl = new URL("/api/v1/workspaces", stack.url).href;
  const mcpUrl = new URL("/mcp", stack.url).href;
  const workspaces = await recordedToolCall(mcpUrl, auth, "workspaces_list");
  const whoami = await recordedToolCall(mcpUrl, auth, "auth_whoami");
  const surfaces = [
    ["rest", "REST GET /workspaces", restUrl, { headers: auth }],
    ["mcp", "MCP tools/call workspaces_list", mcpUrl, workspaces.request],
    ["whoami", "(diagnostic) MCP tools/call auth_whoami", mcpUrl, whoami.request],
  ];
  const bare = await startBare();
  const rounds = 10;
  console.log(
    `\nMCP workspaces_list vs REST GET /workspaces, one key (MCP ${workspaces.protocolVersion}; bare ${durationMs / 1000} s, then ${rounds} alternating rounds of ${durationMs / rounds / 1000} s each, medians, ${new Date().toISOString()})\n`,
  );
  console.log(header);
  const ratios = {};
  for (const connections of [1, 32]) {
    console.log(row(`bare Hono + 1 D1 read, c=${connections}`, await load(bare.url, { connections, durationMs })));
    const measured = await alternatingRounds(
      Object.fromEntries(surfaces.map(([surface, , url, request]) => [surface, { url, ...request }])),
      { connections, durationMs, rounds },
    );
    for (const [surface, name] of surfaces) console.log(row(`${name}, c=${connections}`, measured.figure(surface)));
    ratios[connections] = {
      p50: measured.ratio("mcp", "rest", "p50"),
      rps: measured.ratio("mcp", "rest", "rps"),
      whoamiP50: measured.ratio("whoami", "rest", "p50"),
    };
  }
  console.log(`
MCP p50 / REST p50 at c=1 (median of rounds): ${ratios[1].p50.toFixed(2)} (target <= 1.2, issue 30)
MCP rps / REST rps at c=32 (median of rounds): ${ratios[32].rps.toFixed(2)} (target >= 0.7)
auth_whoami p50 / REST p50 at c=1: ${ratios[1].whoamiP50.toFixed(2)} (the endpoint and the SDK without the pipeline)
`);
  await bare.mf.dispose();
}
