import type { Operation } from "@crm/contracts";
import type { Actor } from "./pipeline/actor";

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
