import { chargedUnitsHeader, type Operation } from "@crm/contracts";
import { noteTokenCost, noteUsesDropped } from "../request-facts";
import type { Actor } from "./actor";
import type { GatewayCall, OperationRequest } from "./operation-call";
import { recordUse } from "./usage-ledger";

/** The display value of integer cost units: 20 → "0.2". */
const displayCost = (units: number) => String(units / 100);

/**
 * What a successful response costs: the operation's units, or, for an operation whose cost varies
 * (`costPer`), the units its region reported, a whole number of no more than the items a request
 * may hold (a reply without a valid report pays one unit). The report is the gateway's to read
 * only, so it leaves the response here.
 */
export function costOfResponse(operation: Operation, response: Response): number {
  if (operation.costPer === null) return operation.costUnits;
  const header = response.headers.get(chargedUnitsHeader) ?? "";
  response.headers.delete(chargedUnitsHeader);
  const reported = /^\d{1,12}$/.test(header) ? Number(header) : Number.NaN;
  return reported <= operation.costUnits * operation.costPer.atMost ? reported : operation.costUnits;
}

/**
 * Books what an authenticated request leaves behind once its outcome is known: the token cost of
 * the operation on a 2xx (0 otherwise), the credential's lastUsedAt and activity row, and the
 * organization's usage ledger under the REST route, whichever surface ran it. Written off the
 * response path; returns the `X-Token-Cost` header.
 */
export function charge(
  call: GatewayCall,
  operation: Operation,
  actor: Actor,
  request: OperationRequest,
  status: number,
  successUnits = operation.costUnits,
): Record<string, string> {
  const costUnits = status >= 200 && status < 300 ? successUnits : 0;
  const use = {
    organizationId: actor.organizationId,
    apiKeyId: actor.credential.type === "api_key" ? actor.credential.id : null,
    method: operation.method.toUpperCase(),
    route: operation.path,
    status,
    ip: request.headers.get("cf-connecting-ip"),
    at: Date.now(),
    costUnits,
  };
  const dropped = recordUse(call.controlDb, use, (promise) => call.executionCtx.waitUntil(promise));
  noteTokenCost(call.requestFacts, costUnits);
  noteUsesDropped(call.requestFacts, dropped);
  return { "x-token-cost": displayCost(costUnits) };
}
