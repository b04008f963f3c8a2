import {
  createMcpHandler,
  isLegacyRequest,
  type McpHttpHandler,
  type McpServer,
  PROTOCOL_VERSION_META_KEY,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import { isPlainObject } from "./json-message";
import { mcpServer } from "./server";
import type { McpCaller } from "./tool-call";

/** As for REST: a larger request is refused (413) before anything of it is parsed, or its credential looked up. */
export const maxRequestBytes = 1024 * 1024;

/**
 * Whether a message claims the 2026-07-28 envelope (its `params._meta` names a protocol version):
 * the SDK classifies such a request or notification as 2026-era traffic, or refuses it, never as
 * 2025-era traffic, but for `initialize` and for a body that is a response. It then skips
 * `isLegacyRequest`, whose classification the handler makes again (zod parses of the message, a share
 * of every call: issue 30); anything else is asked of the SDK.
 */
function claimsModernEnvelope(message: unknown): boolean {
  if (!isPlainObject(message) || "result" in message || "error" in message) return false;
  if (typeof message.method !== "string" || message.method === "initialize") return false;
  const meta = isPlainObject(message.params) ? message.params._meta : undefined;
  return isPlainObject(meta) && PROTOCOL_VERSION_META_KEY in meta;
}

/**
 * 2025-era requests (the `initialize` handshake and what follows it): the SDK's stateless transport,
 * answering with JSON rather than an SSE stream, since one request here has one answer and nothing
 * to stream before it (the SDK's own fallback always streams, a few milliseconds more per call).
 */
async function serveLegacy(server: McpServer, request: Request, message: unknown): Promise<Response> {
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  try {
    return await transport.handleRequest(request, message === undefined ? {} : { parsedBody: message });
  } finally {
    await server.close();
  }
}

/** Each request's server, for the isolate's handler, whose factory is handed the request it serves. */
const serverOf = new WeakMap<Request, () => McpServer>();

const modernHandler = (): McpHttpHandler =>
  createMcpHandler(
    ({ requestInfo }) => {
      const server = requestInfo && serverOf.get(requestInfo);
      if (!server) throw new Error("An MCP request reached the handler without its server");
      return server();
    },
    { legacy: "reject", maxRequestBodySize: maxRequestBytes },
  );

/**
 * The handler of 2026-era requests. One per isolate (building one per request, with its event bus,
 * listen router and notifier, was a share of every call: issue 30), except for `subscriptions/listen`:
 * a handler's listen router caps the streams it holds, so a listen request gets a handler of its own,
 * as every request did before, and the shared one, which serves every other method, never holds a
 * stream: no caller's subscriptions count against another's.
 */
let sharedHandler: McpHttpHandler | undefined;
function handlerFor(message: unknown): McpHttpHandler {
  if ((message as { method?: unknown } | undefined)?.method === "subscriptions/listen") return modernHandler();
  sharedHandler ??= modernHandler();
  return sharedHandler;
}

/**
 * The SDK's answer to a request (2026-07-28, and the 2025-11-25 handshake): a server of this
 * caller's tools (only the called one for a `tools/call`), on the SDK's transport for the request's
 * era. `message` is the parsed body, undefined when the body is not JSON: the SDK then reads the
 * request's body itself, to answer its parse error.
 */
export async function sdkAnswer(
  caller: McpCaller,
  toolName: string | null,
  request: Request,
  message: unknown,
): Promise<Response> {
  const server = () => mcpServer(caller, toolName);
  if (!claimsModernEnvelope(message) && (await isLegacyRequest(request, message))) return serveLegacy(server(), request, message);
  serverOf.set(request, server);
  return handlerFor(message).fetch(request, message === undefined ? {} : { parsedBody: message });
}

/** The `RateLimit-Policy` / `RateLimit` headers of what the request was admitted or refused by, on the SDK's answer. */
export function withLimits(response: Response, limits: Record<string, string>): Response {
  if (Object.keys(limits).length === 0) return response;
  const answered = new Response(response.body, response);
  for (const [name, value] of Object.entries(limits)) answered.headers.set(name, value);
  return answered;
}
