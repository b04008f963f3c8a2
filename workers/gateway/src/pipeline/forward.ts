import { actorContextHeader, type Operation, signActorContext } from "@crm/contracts";
import type { Context } from "hono";
import type { GatewayAppEnv } from "./env";

/** Request headers that stay at the gateway: credentials are replaced by the signed actor context. */
const droppedHeaders = ["authorization", "cookie", actorContextHeader, "x-service-organization-id"];

/**
 * Forwards an authenticated request to its organization's region over a service binding
 * (never a public hop), carrying the signed actor context the regional Worker trusts.
 */
export async function forwardToRegion(c: Context<GatewayAppEnv>, operation: Operation): Promise<Response> {
  const { actor, requestId } = c.var;
  const { region, ...context } = actor;
  const headers = new Headers(c.req.raw.headers);
  for (const name of droppedHeaders) headers.delete(name);
  headers.set("x-request-id", requestId);
  headers.set(
    actorContextHeader,
    await signActorContext(
      { ...context, requestId, operationId: operation.operationId, issuedAt: Date.now() },
      c.env.GATEWAY_CONTEXT_SECRET,
    ),
  );
  const url = new URL(c.req.url);
  const regionService = region === "eu" ? c.env.API_EU : c.env.API_US;
  const hasBody = c.req.method !== "GET" && c.req.method !== "HEAD";
  const response = await regionService.fetch(`https://api.${region}.internal${url.pathname}${url.search}`, {
    method: c.req.method,
    headers,
    // Bytes as received; Hono caches them when the gateway has already read the body.
    body: hasBody ? await c.req.arrayBuffer() : null,
  });
  // A fetched response has immutable headers; the gateway still adds its own (X-Request-Id, limits).
  return new Response(response.body, response);
}
