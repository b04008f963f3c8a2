import { ApiError, type ErrorBody, errorBody, logUnexpectedError, toApiError, toBase64 } from "@crm/contracts";
import type { CallToolResult } from "@modelcontextprotocol/server";
import type { Actor } from "../pipeline/actor";
import { admitCaller } from "../pipeline/admit";
import { authorize, organizationHeader } from "../pipeline/authorize";
import type { GatewayCall, OperationRequest } from "../pipeline/operation-call";
import { runAuthenticated } from "../pipeline/run-operation";
import { type RouteTool, routeToolNamed, type ToolArguments } from "./route-tools";

/** Who calls the tools of one MCP request: authenticated once by the endpoint, for every call it carries. */
export interface McpCaller {
  call: GatewayCall;
  actor: Actor;
  /** The gateway's origin as the client reached it. */
  origin: string;
  /** The MCP request's headers: the client's address and organization choice apply to its calls too. */
  headers: Headers;
  /** The `RateLimit-Policy` / `RateLimit` headers of the windows the request met, for its HTTP answer. */
  limits: Record<string, string>;
}

/** Headers of the MCP request that each call's request keeps: rate limits by address, organization selection. */
const carriedHeaders = ["cf-connecting-ip", organizationHeader];

const encoder = new TextEncoder();

/**
 * The HTTP request the tool's operation runs for, built from the arguments: path parameters into
 * the path template, query parameters into the query, the body's properties into a JSON body, and
 * `idempotencyKey` as the `Idempotency-Key` header, `ifMatch` as `If-Match`. The region validates it exactly as a REST call.
 */
function operationRequest(caller: McpCaller, tool: RouteTool, args: ToolArguments): OperationRequest {
  const { operation, placement } = tool;
  const path = placement.path.reduce(
    (template, name) => template.replace(`{${name}}`, encodeURIComponent(String(args[name]))),
    operation.path,
  );
  const url = new URL(`/api/v1${path}`, caller.origin);
  for (const name of placement.query) {
    if (args[name] !== undefined) url.searchParams.set(name, String(args[name]));
  }
  const headers = new Headers();
  for (const name of carriedHeaders) {
    const value = caller.headers.get(name);
    if (value !== null) headers.set(name, value);
  }
  if (typeof args.idempotencyKey === "string") headers.set("idempotency-key", args.idempotencyKey);
  if (typeof args.ifMatch === "string") headers.set("if-match", args.ifMatch);
  const body = Object.fromEntries(placement.body.filter((name) => args[name] !== undefined).map((name) => [name, args[name]]));
  // A DELETE takes no body or `{}`; every other write sends its (possibly empty) object.
  const hasBody = operation.method !== "get" && (operation.method !== "delete" || Object.keys(body).length > 0);
  if (hasBody) headers.set("content-type", "application/json");
  return {
    method: operation.method.toUpperCase(),
    url,
    headers,
    // A TextEncoder's bytes are always a fresh ArrayBuffer, never a shared one.
    body: hasBody ? (encoder.encode(JSON.stringify(body)).buffer as ArrayBuffer) : null,
    // The operation's errors then name the tool's arguments, not where the request carried them.
    surface: "mcp",
  };
}

/** An API failure as a tool result: the error body, its paths the tool's own arguments (`fields.email`), for the model to act on. */
const errorResult = (body: ErrorBody | unknown): CallToolResult => ({
  content: [{ type: "text", text: JSON.stringify(body) }],
  isError: true,
});

/**
 * The API's JSON text of a result whose structured content is that text parsed: the direct path
 * (./direct-call.ts) writes the text into its answer as it is, instead of the value parsed and
 * written again.
 */
export const structuredText = new WeakMap<CallToolResult, string>();

/**
 * A JSON answer as a tool result: its text as the API wrote it (not parsed and written again), the
 * parsed body as structured content (parsed when first read: the direct path never reads it), and
 * the resource's `ETag`, when it has one, in `_meta.etag` for a later `ifMatch`.
 */
function jsonResult(text: string, etag: string | null): CallToolResult {
  let parsed: Record<string, unknown> | undefined;
  const result: CallToolResult = {
    content: [{ type: "text", text }],
    get structuredContent() {
      parsed ??= JSON.parse(text) as Record<string, unknown>;
      return parsed;
    },
    ...(etag === null ? {} : { _meta: { etag } }),
  };
  structuredText.set(result, text);
  return result;
}

/** The operation's answer as a tool result: JSON as structured content, anything else (an attachment) as a blob. */
async function toolResult(response: Response, url: URL): Promise<CallToolResult> {
  const contentType = response.headers.get("content-type") ?? "application/octet-stream";
  if (response.status >= 400) return errorResult(await response.json());
  if (/^application\/json\b/i.test(contentType)) return jsonResult(await response.text(), response.headers.get("etag"));
  const blob = toBase64(new Uint8Array(await response.arrayBuffer()));
  return { content: [{ type: "resource", resource: { uri: url.href, mimeType: contentType, blob } }] };
}

const rateLimitHeaders = ["ratelimit-policy", "ratelimit"];

/** Keeps the rate-limit headers of the tool's operation (admitted, or refused with 429) for the MCP request's answer. */
function noteLimits(caller: McpCaller, headers: Headers | Record<string, string>) {
  const present = new Headers(headers);
  for (const name of rateLimitHeaders) {
    const value = present.get(name);
    if (value) caller.limits[name] = value;
  }
}

/** Runs the tool's operation through the same steps as its REST route, booked under that route. */
async function runRouteTool(caller: McpCaller, tool: RouteTool, args: ToolArguments): Promise<CallToolResult> {
  const request = operationRequest(caller, tool, args);
  try {
    const response = await runAuthenticated(caller.call, tool.operation, request, caller.actor);
    noteLimits(caller, response.headers);
    return await toolResult(response, request.url);
  } catch (failure) {
    const error = toApiError(failure);
    noteLimits(caller, error.headers);
    if (error !== failure) {
      logUnexpectedError(failure, {
        requestId: caller.call.requestId,
        route: `MCP ${tool.name}`,
        code: error.code,
      });
    }
    return errorResult(errorBody(error, caller.call.requestId));
  }
}

/**
 * A sending tool without `sendMode`: what would be sent, and nothing done. Scope is checked so a
 * preview never promises what the credential may not send. A message given in the arguments costs no
 * tokens and counts in the caller's identity and key windows only, as every MCP request that runs
 * no route; a tool that sends a saved draft previews the draft itself, read as its draft tool reads
 * it (a read, limited and charged as one).
 */
async function preview(caller: McpCaller, tool: RouteTool, draftTool: string, args: ToolArguments): Promise<CallToolResult> {
  const savedDraft = routeToolNamed(caller.origin, draftTool);
  const readsSavedDraft = savedDraft?.operation.method === "get";
  try {
    authorize(tool.operation, caller.actor, operationRequest(caller, tool, args));
    if (!readsSavedDraft) caller.limits = await admitCaller(caller.call, caller.actor);
  } catch (failure) {
    const error = toApiError(failure);
    noteLimits(caller, error.headers);
    return errorResult(errorBody(error, caller.call.requestId));
  }
  const { idempotencyKey: _, ...message } = args;
  let previewed: unknown = message;
  if (savedDraft && readsSavedDraft) {
    const read = await runRouteTool(caller, savedDraft, message);
    if (read.isError) return read;
    previewed = read.structuredContent;
  }
  const result = { sent: false, confirmationRequired: true, preview: previewed };
  return {
    content: [
      { type: "text", text: JSON.stringify(result) },
      { type: "text", text: `Nothing was sent. Call ${tool.name} again with sendMode "send" to send this message.` },
    ],
    structuredContent: result,
  };
}

/** `sendMode: "draft"`: the arguments saved by the operation's draft tool, if it keeps them all. */
function draftOf(
  caller: McpCaller,
  tool: RouteTool,
  draftTool: string,
  args: ToolArguments,
): CallToolResult | Promise<CallToolResult> {
  const drafts = routeToolNamed(caller.origin, draftTool);
  if (!drafts) throw new Error(`No tool ${draftTool} to save drafts of ${tool.name} with`);
  const refuse = (message: string, details?: unknown) =>
    errorResult(errorBody(new ApiError("invalid_request", message, details), caller.call.requestId));
  const accepted = new Set([...drafts.placement.path, ...drafts.placement.query, ...drafts.placement.body, "idempotencyKey"]);
  const dropped = Object.keys(args).filter((name) => !accepted.has(name));
  if (dropped.length > 0) {
    const details = dropped.map((name) => ({ path: name, message: "A draft does not keep this" }));
    return refuse(`A draft keeps ${[...accepted].join(", ")}`, details);
  }
  return runRouteTool(caller, drafts, args);
}

/**
 * Calls a route tool. Sending tools follow their `sendMode` (reference rule 12): omitted → a
 * preview, `draft` → a saved draft, `send` → the operation itself. Any failure of the API is a
 * tool result with `isError` and the REST error body.
 */
export function callRouteTool(caller: McpCaller, tool: RouteTool, args: ToolArguments): CallToolResult | Promise<CallToolResult> {
  const sending = tool.operation.mcpSendMode;
  if (!sending) return runRouteTool(caller, tool, args);
  const { sendMode, ...message } = args;
  if (sendMode === "send") return runRouteTool(caller, tool, message);
  if (sendMode === "draft") return draftOf(caller, tool, sending.draftTool, message);
  return preview(caller, tool, sending.draftTool, message);
}
