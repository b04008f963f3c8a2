import {
  type CallToolResult,
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  classifyInboundRequest,
  isJsonContentType,
  PROTOCOL_VERSION_META_KEY,
  SERVER_INFO_META_KEY,
} from "@modelcontextprotocol/server";
import { isPlainObject } from "./json-message";
import type { RouteTool, ToolArguments } from "./route-tools";
import { serverInfo } from "./server";
import { callRouteTool, type McpCaller, structuredText } from "./tool-call";

/**
 * The common request answered without the SDK's per-request server (issue 30: building the server,
 * registering its tool, connecting a transport, the protocol's zod parses of the request and the
 * result, and the teardown cost as much as the whole REST pipeline's own work): one `tools/call` of a
 * route tool at revision 2026-07-28, well formed. It runs the same tool handler the SDK would
 * (`callRouteTool`) and writes the JSON-RPC answer the SDK writes for it, byte for byte (checked
 * against the SDK's own answers by `test/mcp-direct-call.test.ts`). Anything it does not recognise
 * exactly it declines, before anything runs, and the SDK answers as before: `initialize` and other
 * methods, notifications, batches, 2025-era requests, an envelope or header the SDK would refuse or
 * that asks for more than a result (`_meta` keys besides the envelope's three, such as a progress
 * token or a log level), arguments that fail the tool's input schema (the SDK words that error),
 * tools that answer an attachment's bytes, utility and unknown tools.
 */

/** The revision answered here: DESIGN.md section 11's, the SDK's one 2026-era revision. */
export const directRevision = "2026-07-28";

const onlyKeys = (value: Record<string, unknown>, allowed: readonly string[]) =>
  Object.keys(value).every((key) => allowed.includes(key));

const messageKeys = ["jsonrpc", "id", "method", "params"];
const paramKeys = ["name", "arguments", "_meta"];
const envelopeKeys = [PROTOCOL_VERSION_META_KEY, CLIENT_INFO_META_KEY, CLIENT_CAPABILITIES_META_KEY];

/**
 * Envelopes (`params._meta`, as JSON) the SDK's classifier accepted at this revision. A client sends
 * the same envelope with every call, and classifying it again (the SDK's zod schemas of the JSON-RPC
 * request and the envelope) was the larger share of what this path still spent of its own. Whatever
 * else the classifier reads (the JSON-RPC version, id and method, the standard headers) is checked
 * by `recognisedCall` first, so an envelope accepted once is accepted in any message it recognises.
 * Bounded: emptied when full, so a client varying its envelope costs classifications, never memory.
 */
const acceptedEnvelopes = new Set<string>();
const rememberedEnvelopes = 256;

function envelopeAccepted(message: Record<string, unknown>, meta: Record<string, unknown>, name: string): boolean {
  const envelope = JSON.stringify(meta);
  if (acceptedEnvelopes.has(envelope)) return true;
  // The SDK's own classification of the whole message: its JSON-RPC shape and the envelope's schema.
  const route = classifyInboundRequest({
    httpMethod: "POST",
    protocolVersionHeader: directRevision,
    mcpMethodHeader: "tools/call",
    mcpNameHeader: name,
    body: message,
  });
  if (route.kind !== "modern" || route.messageKind !== "request" || route.classification.revision !== directRevision)
    return false;
  if (acceptedEnvelopes.size >= rememberedEnvelopes) acceptedEnvelopes.clear();
  acceptedEnvelopes.add(envelope);
  return true;
}

/** The call's id and arguments when the message is one the SDK would serve exactly as this module does. */
function recognisedCall(
  request: Request,
  message: unknown,
  tool: RouteTool,
): { id: string | number; args: ToolArguments } | null {
  // An attachment's bytes come back as a resource block, which the SDK's result schema rewrites: left to it.
  if (request.signal.aborted || tool.bindsHeaders || tool.outputSchema === undefined) return null;
  if (!isJsonContentType(request.headers.get("content-type"))) return null;
  if (!isPlainObject(message) || message.method !== "tools/call" || !onlyKeys(message, messageKeys)) return null;
  const { params, id } = message;
  if (!isPlainObject(params) || !onlyKeys(params, paramKeys) || params.name !== tool.name) return null;
  if (params.arguments !== undefined && !isPlainObject(params.arguments)) return null;
  if (!isPlainObject(params._meta) || !onlyKeys(params._meta, envelopeKeys)) return null;
  // The standard headers as a well-behaved client sends them: exact, else the SDK judges them.
  const headers = request.headers;
  if (headers.get("mcp-protocol-version") !== directRevision || headers.get("mcp-method") !== "tools/call") return null;
  if (headers.get("mcp-name") !== tool.name) return null;
  if (message.jsonrpc !== "2.0" || !(typeof id === "string" || (typeof id === "number" && Number.isSafeInteger(id)))) return null;
  if (!envelopeAccepted(message, params._meta, tool.name)) return null;
  return { id, args: params.arguments ?? {} };
}

/**
 * The result as the SDK writes it at 2026-07-28: its result schema's members first, in the schema's
 * order (`_meta`, `content`, `structuredContent`, `isError`: the SDK answers with the schema's parse
 * of the result), any other member after them, then `resultType` stamped, and the server's identity
 * added to `_meta` (appended when the tool set none). A result with non-object structured content
 * would get a text fallback from the SDK; every route tool's result already has its text content,
 * so there is none to add.
 */
function wireResult(result: CallToolResult) {
  const { _meta, content, structuredContent, isError, ...others } = result;
  const identity = { [SERVER_INFO_META_KEY]: serverInfo };
  return {
    ...(_meta === undefined ? {} : { _meta: { ..._meta, ...identity } }),
    content,
    ...(structuredContent === undefined ? {} : { structuredContent }),
    ...(isError === undefined ? {} : { isError }),
    ...others,
    resultType: "complete",
    ...(_meta === undefined ? { _meta: identity } : {}),
  };
}

/** A thrown failure of the handler as the SDK reports it: a tool result with the error's message. */
const thrownResult = (error: unknown): CallToolResult => ({
  content: [{ type: "text", text: error instanceof Error ? error.message : String(error) }],
  isError: true,
});

/**
 * The answer to a recognised `tools/call` of `tool`, with the `RateLimit-Policy` / `RateLimit`
 * headers of the windows it met, or null to let the SDK answer. A declined
 * request has run nothing: the arguments are validated (the tool's own schema, as the SDK does)
 * before the tool runs.
 */
export async function directToolCall(
  caller: McpCaller,
  tool: RouteTool,
  request: Request,
  message: unknown,
): Promise<Response | null> {
  const call = recognisedCall(request, message, tool);
  if (!call) return null;
  const validated = await tool.inputSchema["~standard"].validate(call.args);
  if (validated.issues) return null;
  let result: CallToolResult;
  try {
    result = await callRouteTool(caller, tool, validated.value);
  } catch (error) {
    result = thrownResult(error);
  }
  // The windows the call met (`caller.limits`, noted from its operation) go on the answer as it is
  // made, not on a copy of it.
  const headers = { "Content-Type": "application/json", ...caller.limits };
  return new Response(answerText(result, call.id), { status: 200, headers });
}

/**
 * The JSON-RPC answer's text. A result that is the API's JSON (`structuredText`) gets that text as
 * its structured content as it is, in the place `wireResult` gives it, instead of the value parsed
 * and written again: the same JSON, one parse and one serialization of the body fewer.
 */
function answerText(result: CallToolResult, id: string | number): string {
  const text = structuredText.get(result);
  if (text === undefined) return JSON.stringify({ result: wireResult(result), jsonrpc: "2.0", id });
  // `jsonResult` made it: content, the structured content, and `_meta` only when an ETag is in it.
  const { _meta, content } = result;
  const identity = { [SERVER_INFO_META_KEY]: serverInfo };
  const lead = _meta === undefined ? "" : `"_meta":${JSON.stringify({ ..._meta, ...identity })},`;
  const trail = _meta === undefined ? `,"_meta":${JSON.stringify(identity)}` : "";
  return `{"result":{${lead}"content":${JSON.stringify(content)},"structuredContent":${text},"resultType":"complete"${trail}},"jsonrpc":"2.0","id":${JSON.stringify(id)}}`;
}
