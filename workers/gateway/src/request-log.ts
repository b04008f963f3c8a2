import type { Operation } from "@crm/contracts";
import { newId } from "@crm/db";
import type { MiddlewareHandler } from "hono";
import { routePath } from "hono/route";
import type { GatewayAppEnv } from "./env";
import type { Actor } from "./pipeline/authenticate";

/**
 * What the pipeline learned about a request, for its log line: filled in as the steps run, whichever
 * surface ran the operation (a REST route, an MCP tool call, a console page). Only identifiers and
 * figures: never a header, a query string, a body or a credential.
 */
export interface RequestFacts {
  operationId: string | null;
  actorType: Actor["actor"]["type"] | null;
  credential: Actor["credential"]["type"] | null;
  organizationId: string | null;
  region: Actor["region"] | null;
  /** The token cost charged, in the display units of `X-Token-Cost`; null when no operation ran. */
  tokenCost: number | null;
  /** Uses the usage ledger dropped while booking this one (its buffer is bounded); absent when none. */
  usesDropped?: number;
}

export const newRequestFacts = (): RequestFacts => ({
  operationId: null,
  actorType: null,
  credential: null,
  organizationId: null,
  region: null,
  tokenCost: null,
});

export function noteOperation(facts: RequestFacts, operation: Operation): void {
  facts.operationId = operation.operationId;
}

/** Who the request acts as, once authentication (or a connection's route) established it. */
export function noteActor(facts: RequestFacts, actor: Actor): void {
  facts.actorType = actor.actor.type;
  facts.credential = actor.credential.type;
  facts.organizationId = actor.organizationId;
  facts.region = actor.region;
}

export function noteTokenCost(facts: RequestFacts, costUnits: number): void {
  facts.tokenCost = costUnits / 100;
}

export function noteUsesDropped(facts: RequestFacts, dropped: number): void {
  if (dropped > 0) facts.usesDropped = dropped;
}

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
  c.header("x-request-id", c.var.requestId);
  const line: RequestLogLine = {
    level: "info",
    message: "request",
    requestId: c.var.requestId,
    // The last matched route is the handler's own template; an unmatched path names only the catch-all.
    route: `${c.req.method} ${routePath(c, -1)}`,
    status: c.res.status,
    durationMs: Date.now() - started,
    ...c.var.requestFacts,
  };
  console.log(JSON.stringify(line));
};
