import { actorContextHeader, type ContextRequest, type Operation, publicBaseUrlHeader, signActorContextOf } from "@crm/contracts";
import { contextSecret, regionService } from "../env";
import type { Actor } from "./actor";
import type { GatewayCall, OperationRequest } from "./operation-call";

/** Request headers that stay at the gateway: credentials are replaced by the signed actor context. */
const droppedHeaders = ["authorization", "cookie", actorContextHeader, publicBaseUrlHeader, "x-service-organization-id"];

/**
 * Sends the request to the actor's organization's regional Worker over its service binding (never a
 * public hop), with a context signed with that region's secret and naming this very request (region,
 * operation, method, path template, path and query). Also for signed inbound webhooks.
 */
export async function forwardToRegion(
  call: GatewayCall,
  operation: Operation,
  actor: Actor,
  request: OperationRequest,
): Promise<Response> {
  const { region } = actor;
  const target = `${request.url.pathname}${request.url.search}`;
  const signedFor: ContextRequest = {
    requestId: call.requestId,
    operationId: operation.operationId,
    method: request.method,
    path: operation.path,
    target,
    surface: request.surface ?? "api",
    issuedAt: Date.now(),
  };
  const headers = new Headers(request.headers);
  for (const name of droppedHeaders) headers.delete(name);
  headers.set("x-request-id", call.requestId);
  headers.set(publicBaseUrlHeader, `${request.url.origin}/api/v1`);
  headers.set(actorContextHeader, await signActorContextOf(actor, signedFor, contextSecret(call.env, region)));
  const response = await regionService(call.env, region).fetch(`https://api.${region}.internal${target}`, {
    method: request.method,
    headers,
    body: request.body,
  });
  // A fetched response has immutable headers; the gateway still adds its own (X-Request-Id, limits).
  return new Response(response.body, response);
}
