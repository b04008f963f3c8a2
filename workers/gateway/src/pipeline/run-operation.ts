import { ApiError, type Operation } from "@crm/contracts";
import { noteActor, noteOperation, noteTokenCost } from "../request-facts";
import type { Actor } from "./actor";
import { admit } from "./admit";
import { authenticate } from "./authenticate";
import { authorize } from "./authorize";
import { charge, costOfResponse } from "./charge";
import { forwardToRegion } from "./forward";
import { forwardSignedDelivery, trackConnectionRoutes } from "./inbound";
import { type GatewayCall, type OperationRequest, withHeaders } from "./operation-call";
import { serveOwnOperation } from "./own-operations";
import { authenticateSession } from "./session-credential";

/**
 * Runs one catalogue operation through the gateway's steps and answers its response; every failure
 * is thrown as an `ApiError` for the surface to render (the REST error hook, an MCP tool result).
 * The REST routes call it with the request as received; the MCP endpoint, console pages and inbound
 * webhooks call it in process with a request they build, so each runs the same pipeline.
 *
 *   bearer:    authenticate → authorize → admit → forward → charge
 *   none:      admit (client address and public reads, or a valid unsubscribe token's recipient) → the gateway's own handler
 *   signature: admit (sending address) → the connection's region, which verifies the signature → its connection's window
 *   session:   console session (same origin, CSRF) → admit → the gateway's own handler (free, not booked)
 */
export async function runOperation(call: GatewayCall, operation: Operation, request: OperationRequest): Promise<Response> {
  noteOperation(call.requestFacts, operation);
  if (operation.auth === "bearer") return runAuthenticated(call, operation, request, await authenticated(call, request));
  if (operation.auth === "session") {
    const actor = await authenticateSession(call, request);
    noteActor(call.requestFacts, actor);
    const limits = await admit(call, operation, request, actor);
    return withHeaders(await serveOwnOperation(call, actor, request), { ...limits, ...free(call) });
  }
  const limits = await admit(call, operation, request, null);
  // Inbound webhooks are free: they are the provider's deliveries, not the organization's API usage.
  if (operation.auth === "signature")
    return withHeaders(await forwardSignedDelivery(call, operation, request), { ...limits, ...free(call) });
  // No credential, no organization to charge: such a request costs nothing, and says so like every success.
  return withHeaders(await serveOwnOperation(call, null, request), { ...limits, ...free(call) });
}

async function authenticated(call: GatewayCall, request: OperationRequest): Promise<Actor> {
  const actor = await authenticate(call, request);
  noteActor(call.requestFacts, actor);
  return actor;
}

/** The cost header of an operation that is never charged. */
function free(call: GatewayCall): Record<string, string> {
  noteTokenCost(call.requestFacts, 0);
  return { "x-token-cost": "0" };
}

/**
 * The steps after authentication (authorize → admit → forward → charge) for an actor, booked: REST
 * runs them after `authenticate`, an MCP tool call with the actor its endpoint authenticated.
 */
export async function runAuthenticated(call: GatewayCall, operation: Operation, request: OperationRequest, actor: Actor) {
  let outcome: { response: Response; limits: Record<string, string> } | { failure: unknown };
  try {
    authorize(operation, actor, request);
    const limits = await admit(call, operation, request, actor);
    const response = await forward(call, operation, actor, request);
    await trackConnectionRoutes(call, operation, actor, response);
    outcome = { response, limits };
  } catch (failure) {
    outcome = { failure };
  }
  // Every outcome of an authenticated request is booked, refusals included: they show in the key's activity.
  if ("failure" in outcome) {
    const { failure } = outcome;
    const cost = charge(call, operation, actor, request, failure instanceof ApiError ? failure.status : 500);
    throw failure instanceof ApiError ? withErrorHeaders(failure, cost) : failure;
  }
  const units = costOfResponse(operation, outcome.response);
  const cost = charge(call, operation, actor, request, outcome.response.status, units);
  return withHeaders(outcome.response, { ...outcome.limits, ...cost });
}

/** Runs an authorized, admitted operation where its handler lives: the organization's region, or the gateway's own handlers for control-plane operations. */
function forward(call: GatewayCall, operation: Operation, actor: Actor, request: OperationRequest): Promise<Response> {
  if (operation.servedBy === "gateway") return serveOwnOperation(call, actor, request);
  return forwardToRegion(call, operation, actor, request);
}

const withErrorHeaders = (error: ApiError, headers: Record<string, string>) =>
  new ApiError(error.code, error.message, error.details, { ...error.headers, ...headers }, error.retryAfterMs);
