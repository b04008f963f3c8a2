import { newId } from "@crm/db";
import type { MiddlewareHandler } from "hono";
import { routePath } from "hono/route";
import type { GatewayAppEnv } from "./env";
import { newRequestFacts, type RequestFacts } from "./request-facts";

/** One request's line: what Workers Logs indexes and a query filters on. */
export interface RequestLogLine extends RequestFacts {
  level: "info";
  message: "request";
  requestId: string;
  /** Method and route template as matched (`GET /api/v1/records/:recordId`): never the path with its ids. */
  route: string;
  status: number;
  durationMs: number;
}

/**
 * The gateway's first middleware: gives the request its id and its facts, and once the response is
 * known writes one JSON line per request to the console (Workers Logs in production). Runs around
 * the error hook, so refusals and failures are logged with their status like successes.
 */
export const requestLog: MiddlewareHandler<GatewayAppEnv> = async (c, next) => {
  const started = Date.now();
  c.set("requestId", newId("req"));
  c.set("requestFacts", newRequestFacts());
  await next();
  // `c.get`, not `c.var`, which copies every variable on each access.
  const requestId = c.get("requestId");
  c.header("x-request-id", requestId);
  const line: RequestLogLine = {
    level: "info",
    message: "request",
    requestId,
    // The last matched route is the handler's own template; an unmatched path names only the catch-all.
    route: `${c.req.method} ${routePath(c, -1)}`,
    status: c.res.status,
    durationMs: Date.now() - started,
    ...c.get("requestFacts"),
  };
  console.log(JSON.stringify(line));
};
