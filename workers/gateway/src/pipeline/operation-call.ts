import type { Surface } from "@crm/contracts";
import type { DrizzleD1Database } from "drizzle-orm/d1";
import type { Context, ExecutionContext } from "hono";
import type { GatewayAppEnv, GatewayEnv } from "../env";
import type { RequestFacts } from "../request-facts";

/**
 * What every step of the pipeline may use, whichever surface runs the operation: a REST route, an
 * MCP tool call, a console page or an inbound webhook, all inside the same gateway request.
 */
export interface GatewayCall {
  env: GatewayEnv;
  /** Keeps work after the response alive (usage batches) and serves the gateway's own handlers. */
  executionCtx: ExecutionContext;
  controlDb: DrizzleD1Database;
  requestId: string;
  /** What the steps learn about the request (operation, actor, cost), for its log line. */
  requestFacts: RequestFacts;
}

/**
 * The call of a gateway request, for any surface that runs an operation within it. Variables are
 * read with `c.get`: Hono's `c.var` copies every variable into a new object on each access.
 */
export const gatewayCall = <E extends GatewayAppEnv>(c: Context<E>): GatewayCall => {
  // E's variables include the gateway's, but TypeScript cannot look a name up in a generic E's.
  const context = c as unknown as Context<GatewayAppEnv>;
  return {
    env: c.env,
    executionCtx: c.executionCtx,
    controlDb: context.get("controlDb"),
    requestId: context.get("requestId"),
    requestFacts: context.get("requestFacts"),
  };
};

/** The HTTP request an operation runs for: as received by a REST route, or built by another surface. */
export interface OperationRequest {
  /** As sent (a HEAD to a GET route stays HEAD). */
  method: string;
  /** Absolute URL of the operation's path under `/api/v1`, with its query. */
  url: URL;
  headers: Headers;
  /** The body's bytes as received, forwarded untouched; null when the method has none. */
  body: ArrayBuffer | null;
  /** The MCP endpoint's tool calls say `mcp`; every other request is the REST API's. */
  surface?: Surface;
}

/** The client's address as Cloudflare's edge reports it; one shared bucket when it is missing. */
export const clientIp = (request: OperationRequest): string => request.headers.get("cf-connecting-ip") ?? "unknown";

/** The response with the gateway's own headers set (limits, cost); a forwarded response's headers are mutable copies. */
export function withHeaders(response: Response, headers: Record<string, string>): Response {
  for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
  return response;
}
