import { ApiError, respondWithError, scopes } from "@crm/contracts";
import {
  localhostAllowedHostnames,
  originValidationResponse,
  readRequestBody,
  validateHostHeader,
} from "@modelcontextprotocol/server";
import type { Context } from "hono";
import { gatewayConfig } from "../config";
import type { GatewayAppEnv, GatewayEnv } from "../env";
import { mcpApiResource, mcpResource } from "../oauth/resources";
import type { Actor } from "../pipeline/actor";
import { admitCaller } from "../pipeline/admit";
import { authenticate } from "../pipeline/authenticate";
import { insufficientScope, withResourceMetadata } from "../pipeline/credential-errors";
import { gatewayCall } from "../pipeline/operation-call";
import { directToolCall } from "./direct-call";
import { type RouteTool, routeToolNamed } from "./route-tools";
import { maxRequestBytes, sdkAnswer, withLimits } from "./sdk-answer";
import { calledTool } from "./server";
import type { McpCaller } from "./tool-call";

/**
 * The hostnames the endpoint answers for. The local stack answers on loopback names only, so a page
 * whose name a rebinding DNS points at 127.0.0.1 is refused (DNS-rebinding protection, as the MCP
 * transport requires of local servers). Deployed, Cloudflare hands the Worker only requests for its
 * own routes, so the name is the request's; a browser's `Origin` must still be that name.
 */
const allowedHostnames = (env: GatewayEnv, url: URL): string[] =>
  gatewayConfig(env).devTools ? localhostAllowedHostnames() : [url.hostname];

/** A JSON-RPC error in the shape the SDK gives its own (no request id: none was read). */
const jsonRpcError = (status: number, code: number, message: string, headers: Record<string, string> = {}) =>
  Response.json({ jsonrpc: "2.0", error: { code, message }, id: null }, { status, headers });

/** A refusal of the transport itself (host, method, size). */
const transportRefusal = (status: number, message: string, headers: Record<string, string> = {}) =>
  jsonRpcError(status, -32000, message, headers);

/**
 * The OAuth resource a request reached (DESIGN.md section 11): `<origin>/mcp`, or `<origin>/api/v1/mcp`
 * for clients configured with `{base_url}`, each with its own RFC 9728 document. Tokens for either
 * work on both paths.
 */
const resourceOf = (url: URL) => (url.pathname === "/api/v1/mcp" ? mcpApiResource(url.origin) : mcpResource(url.origin));

/**
 * What a client should ask for when the challenge is its only guide: every read scope. Writes and
 * sends come by step-up, when a tool call answers 403 `insufficient_scope` naming what it needs.
 */
const defaultScope = scopes.filter((scope) => scope.endsWith(":read")).join(" ");

/**
 * A refused credential, with the challenge an MCP client follows to get a token for this endpoint:
 * RFC 9728 `resource_metadata` of the resource it reached instead of the REST API's realm, the RFC
 * 6750 error kept, and on a 401 the `scope` to ask for (MCP authorization specification).
 */
function challenged(error: unknown, resource: string): unknown {
  const named = withResourceMetadata(error, resource, false);
  if (named === error || !(named instanceof ApiError) || named.status !== 401) return named;
  const headers = { ...named.headers, "www-authenticate": `${named.headers["www-authenticate"]}, scope="${defaultScope}"` };
  return new ApiError(named.code, named.message, named.details, headers, named.retryAfterMs);
}

/**
 * A call of a route tool whose scope an OAuth token lacks: 403 `insufficient_scope` naming the
 * scopes to ask for (those the token has and the tool's), so that the client can step up. An API key
 * cannot be stepped up: it gets the tool's error result as any other refusal.
 */
function missingScope(actor: Actor, tool: RouteTool | undefined): ApiError | null {
  const needed = tool?.operation.scope;
  if (actor.credential.type !== "oauth" || !needed || actor.scopes.includes(needed)) return null;
  return insufficientScope(needed, [...actor.scopes, needed]);
}

/**
 * The SDK compares an `Origin`'s host name only; another port of the same host is another origin
 * (a page of another local server, say), refused as a foreign host is.
 */
function otherPort(request: Request, url: URL): Response | null {
  const origin = request.headers.get("origin");
  if (origin === null) return null;
  const parsed = URL.parse(origin);
  return parsed && parsed.port === url.port ? null : transportRefusal(403, `Invalid Origin header: ${origin.slice(0, 200)}`);
}

/**
 * The body as text, or `tooLarge`. A declared length is the body's length (the runtime ends the
 * stream there), so such a body within the limit is read in one step; one without a length is read
 * in chunks and counted as it arrives (the SDK's reader).
 */
async function requestBody(request: Request): Promise<{ tooLarge: true } | { tooLarge: false; text: string }> {
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) <= maxRequestBytes) return { tooLarge: false, text: await request.text() };
  return readRequestBody(request, maxRequestBytes);
}

/** The body as JSON, or undefined when it is not JSON (the SDK answers that with its parse error). */
function parsed(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}

/**
 * `POST /mcp` (and `/api/v1/mcp`), Streamable HTTP, stateless (DESIGN.md section 11): Host and
 * Origin checked, the body read within its limit, then the bearer credential authenticated once for
 * the request, for this endpoint's audience; the SDK then answers the protocol (2026-07-28, and the
 * 2025-11-25 handshake), and each tool call runs its operation through the pipeline as that actor.
 */
export async function serveMcp(c: Context<GatewayAppEnv>): Promise<Response> {
  const request = c.req.raw;
  const url = new URL(request.url);
  const hostnames = allowedHostnames(c.env, url);
  // An HTTP request always names its host; one handed over in process (tests) is read from its URL.
  const host = validateHostHeader(request.headers.get("host") ?? url.host, hostnames);
  if (!host.ok) return transportRefusal(403, host.message);
  const foreignOrigin = originValidationResponse(request, hostnames) ?? otherPort(request, url);
  if (foreignOrigin) return foreignOrigin;
  // Stateless: no stream to open with GET, no session to end with DELETE.
  if (request.method !== "POST") return transportRefusal(405, "Method not allowed.", { allow: "POST" });
  const body = await requestBody(request);
  if (body.tooLarge) return transportRefusal(413, `Payload Too Large: Request body must not exceed ${maxRequestBytes} bytes`);
  const call = gatewayCall(c);
  const resource = resourceOf(url);
  let actor: Actor;
  try {
    actor = await authenticate(call, { method: "POST", url, headers: request.headers, body: null }, "mcp");
  } catch (error) {
    return respondWithError(challenged(error, resource), c, call.requestId);
  }
  const message = parsed(body.text);
  // One JSON-RPC message per POST since 2025-06-18; the SDK's 2025 transport would still serve an array.
  if (Array.isArray(message)) return jsonRpcError(400, -32600, "Invalid Request: batch arrays are not supported");
  const toolName = calledTool(message);
  const routeTool = toolName === null ? undefined : routeToolNamed(url.origin, toolName);
  const caller: McpCaller = { call, actor, origin: url.origin, headers: request.headers, limits: {} };
  try {
    const stepUp = missingScope(actor, routeTool);
    if (stepUp) throw stepUp;
    // A route's tool call counts in every window as its route does; anything else in the caller's own.
    if (!routeTool) caller.limits = await admitCaller(call, actor);
  } catch (error) {
    return respondWithError(challenged(error, resource), c, call.requestId);
  }
  // The common call is answered directly, anything else by the SDK (./direct-call.ts). The SDK reads
  // the parsed message, not the body; a body that is not JSON it reads again, to answer its parse error.
  const direct = routeTool ? await directToolCall(caller, routeTool, request, message) : null;
  if (direct) return direct;
  const served =
    message === undefined ? new Request(request.url, { method: "POST", headers: request.headers, body: body.text }) : request;
  return withLimits(await sdkAnswer(caller, toolName, served, message), caller.limits);
}
