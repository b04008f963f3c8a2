import type { Operation } from "@crm/contracts";
import { noteActor, noteOperation } from "../request-facts";
import type { Actor } from "./actor";
import { admit } from "./admit";
import { authorize } from "./authorize";
import { forwardToRegion } from "./forward";
import { type GatewayCall, type OperationRequest, withHeaders } from "./operation-call";

/**
 * Runs a regional bearer operation for an actor another surface has already established (a console
 * page reading for its signed-in user): the steps after authentication, within the same rate limits,
 * but not booked: the console's own reads are not the organization's API usage or a key's activity.
 * Regional operations only, so that the gateway's own handlers (which use it) need not import the
 * pipeline that serves them.
 */
export async function runOperationAs(
  call: GatewayCall,
  operation: Operation & { servedBy: "region" },
  request: OperationRequest,
  actor: Actor,
): Promise<Response> {
  noteOperation(call.requestFacts, operation);
  noteActor(call.requestFacts, actor);
  authorize(operation, actor, request);
  const limits = await admit(call, operation, request, actor);
  return withHeaders(await forwardToRegion(call, operation, actor, request), limits);
}
