import { createExecutionContext, env } from "cloudflare:test";
import { drizzle } from "drizzle-orm/d1";
import { describe, expect, it } from "vitest";
import { directRevision, directToolCall } from "../workers/gateway/src/mcp/direct-call";
import { type RouteTool, routeToolNamed } from "../workers/gateway/src/mcp/route-tools";
import { sdkAnswer, withLimits } from "../workers/gateway/src/mcp/sdk-answer";
import type { McpCaller } from "../workers/gateway/src/mcp/tool-call";
import { authenticate } from "../workers/gateway/src/pipeline/authenticate";
import { newRequestFacts } from "../workers/gateway/src/request-facts";
import { addPerson, inboxWorkspace } from "./inbox";
import { clientAddress, mcpOrigin, mcpUrl } from "./mcp";
import { cast } from "./stack";

/**
 * The endpoint answers the common `tools/call` itself (workers/gateway/src/mcp/direct-call.ts) and
 * everything else through the SDK. Here each message goes through both, for the same caller (so the
 * same request id in error bodies): where the direct path answers, its answer is the SDK's byte for
 * byte (status, headers, body); where it declines, it has run nothing and the SDK answers.
 */

/** A caller as the endpoint makes one: the key authenticated for the MCP resource. */
async function callerWith(key: string): Promise<McpCaller> {
  const call = {
    env,
    executionCtx: createExecutionContext(),
    controlDb: drizzle(env.CONTROL_DB),
    requestId: `req_direct_${crypto.randomUUID().slice(0, 8)}`,
    requestFacts: newRequestFacts(),
  };
  const headers = new Headers({ authorization: `Bearer ${key}`, "cf-connecting-ip": clientAddress() });
  const actor = await authenticate(call, { method: "POST", url: new URL(mcpUrl), headers, body: null }, "mcp");
  return { call, actor, origin: mcpOrigin, headers, limits: {} };
}

/** The `tools/call` exactly as the SDK's v2 client sends it at 2026-07-28 (the benchmark's recording). */
const clientInfoKey = "io.modelcontextprotocol/clientInfo";
const envelope = {
  "io.modelcontextprotocol/protocolVersion": directRevision,
  [clientInfoKey]: { name: "crm-test-direct", version: "1.0.0" },
  "io.modelcontextprotocol/clientCapabilities": {},
};
const toolCall = (name: string, args: unknown, params: Record<string, unknown> = {}) => ({
  method: "tools/call",
  params: { name, arguments: args, _meta: envelope, ...params },
  jsonrpc: "2.0",
  id: 3,
});
const standardHeaders = (name: string) => ({
  accept: "application/json, text/event-stream",
  "content-type": "application/json",
  "mcp-method": "tools/call",
  "mcp-name": name,
  "mcp-protocol-version": directRevision,
});
const post = (message: unknown, headers: Record<string, string>) =>
  new Request(mcpUrl, { method: "POST", headers, body: JSON.stringify(message) });

const described = async (response: Response) => ({
  status: response.status,
  headers: [...response.headers],
  body: await response.text(),
});

function toolNamed(name: string): RouteTool {
  const tool = routeToolNamed(mcpOrigin, name);
  if (!tool) throw new Error(`no tool ${name}`);
  return tool;
}

/** The direct answer and the SDK's to the same message, for the same caller. */
async function bothPaths(key: string, name: string, message: unknown, headers: Record<string, string> = standardHeaders(name)) {
  const caller = await callerWith(key);
  const direct = await directToolCall(caller, toolNamed(name), post(message, headers), message);
  // The windows the direct call met, which the endpoint puts on the SDK's answer too.
  const limits = { ...caller.limits };
  const sdk = await described(withLimits(await sdkAnswer(caller, name, post(message, headers), message), limits));
  return { direct: direct && (await described(direct)), sdk };
}

describe("the direct tools/call answers as the SDK does", () => {
  it("a read: the same JSON-RPC result, byte for byte", async () => {
    const { alice } = await cast();
    const { direct, sdk } = await bothPaths(alice.apiKey, "workspaces_list", toolCall("workspaces_list", {}));
    expect(sdk.status).toBe(200);
    expect(JSON.parse(sdk.body).result.structuredContent.data.length).toBeGreaterThan(0);
    // The windows the call met are on the direct answer itself.
    expect(direct?.headers.map(([name]) => name)).toEqual(expect.arrayContaining(["ratelimit", "ratelimit-policy"]));
    expect(direct).toEqual(sdk);
  });

  it("a read with an ETag in _meta, beside the server's identity", async () => {
    const workspace = await inboxWorkspace();
    const recordId = await addPerson(workspace.key, workspace.workspaceId, "Dee Direct", "dee@customer.example");
    const { direct, sdk } = await bothPaths(workspace.key, "records_get", toolCall("records_get", { recordId }));
    expect(Object.keys(JSON.parse(sdk.body).result._meta)).toEqual(["etag", "io.modelcontextprotocol/serverInfo"]);
    expect(direct).toEqual(sdk);
  });

  it("a tool error (not found): the REST error body as an isError result", async () => {
    const { alice } = await cast();
    const message = toolCall("records_get", { recordId: "rec_0000000000" });
    const { direct, sdk } = await bothPaths(alice.apiKey, "records_get", message);
    expect(JSON.parse(sdk.body).result.isError).toBe(true);
    expect(direct).toEqual(sdk);
  });

  it("a credential without the tool's scope: the same insufficient_scope result, nothing written", async () => {
    const { acme } = await cast();
    const message = toolCall("records_create", {
      objectTypeId: "obj_0000000000",
      fields: { name: "Nope" },
      idempotencyKey: crypto.randomUUID(),
    });
    const { direct, sdk } = await bothPaths(acme.readOnlyKey as string, "records_create", message);
    expect(JSON.parse(JSON.parse(sdk.body).result.content[0].text).error.code).toBe("insufficient_scope");
    expect(direct).toEqual(sdk);
  });
});

/** How the SDK answers a message the direct path declined: a protocol error or isError result, or a result. */
type SdkVerdict = "refused" | "served";

/**
 * Each message carries the envelope the calls above were answered with (or a variant of it): the
 * direct path remembers an envelope the SDK accepted once, so these are declined with it remembered.
 */
describe("the direct path declines what it does not recognise exactly, and the SDK answers", () => {
  const declined: [string, SdkVerdict, string, unknown, Record<string, string>?][] = [
    ["arguments failing the input schema (the SDK words that error)", "refused", "records_get", toolCall("records_get", {})],
    ["arguments that are not an object", "refused", "workspaces_list", toolCall("workspaces_list", ["a"])],
    ["a params key the call does not know", "served", "workspaces_list", toolCall("workspaces_list", {}, { task: {} })],
    [
      "a progress token in _meta",
      "served",
      "workspaces_list",
      toolCall("workspaces_list", {}, { _meta: { ...envelope, progressToken: 1 } }),
    ],
    [
      "an envelope the SDK refuses",
      "refused",
      "workspaces_list",
      toolCall("workspaces_list", {}, { _meta: { ...envelope, [clientInfoKey]: 7 } }),
    ],
    [
      "a 2025-era call",
      "served",
      "workspaces_list",
      { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "workspaces_list" } },
      { "content-type": "application/json", accept: "application/json, text/event-stream" },
    ],
    ["an id that is no JSON-RPC id", "refused", "workspaces_list", { ...toolCall("workspaces_list", {}), id: { a: 1 } }],
    [
      "an Mcp-Name header naming another tool",
      "refused",
      "workspaces_list",
      toolCall("workspaces_list", {}),
      { ...standardHeaders("workspaces_list"), "mcp-name": "records_get" },
    ],
    [
      "no MCP-Protocol-Version header",
      "refused",
      "workspaces_list",
      toolCall("workspaces_list", {}),
      { ...standardHeaders("workspaces_list"), "mcp-protocol-version": "" },
    ],
  ];
  for (const [what, verdict, name, message, headers] of declined) {
    it(`${what}: ${verdict} by the SDK`, async () => {
      const { alice } = await cast();
      const { direct, sdk } = await bothPaths(alice.apiKey, name, message, headers ?? standardHeaders(name));
      expect(direct).toBeNull();
      const answer = JSON.parse(sdk.body.startsWith("event:") ? (sdk.body.split("data: ")[1] ?? "") : sdk.body);
      const refused = answer.error !== undefined || answer.result?.isError === true;
      expect(refused, sdk.body).toBe(verdict === "refused");
    });
  }
});
