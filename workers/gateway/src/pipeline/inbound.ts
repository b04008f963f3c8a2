import { ApiError, type Operation } from "@crm/contracts";
import { control } from "@crm/db";
import { connectionWindow } from "@crm/rate-limiter";
import { eq } from "drizzle-orm";
import { noteActor } from "../request-facts";
import type { Actor } from "./actor";
import { budgetsOf, deferral, rateLimited } from "./admit";
import { failedAuthentications } from "./authenticate";
import { forwardToRegion } from "./forward";
import { checkInboundRequest } from "./inbound-request";
import { clientIp, type GatewayCall, type OperationRequest } from "./operation-call";

const { connectionRoutes, organizations } = control;

/** The connection an inbound route names: its last path segment (`…/webhooks/{connectionId}`). */
export const connectionIdOf = (request: OperationRequest): string => request.url.pathname.split("/").at(-1) ?? "";

/**
 * A signed inbound webhook goes to the region of the organization that owns the connection named in
 * its path, found in the control plane's map (written when the region created the connection). The
 * region verifies the signature: only it holds the connection's secret. An unknown connection is
 * 404 here, before any region is asked.
 *
 * Only the sending address's window has been charged before (DESIGN.md section 4): the lookup and
 * the signature check come before any window shared with other senders, so junk posted anywhere
 * never refuses a correctly signed delivery. The connection's window (600 a minute) counts only
 * deliveries whose signature verified: a full window refuses before the region is asked, and a
 * delivery the region did not refuse as unsigned or unknown (401, 404) takes its slot after.
 * Parallel deliveries can therefore pass a nearly full window by the few in flight, which costs a
 * region nothing it could not bear; the sending address's window has bounded them already. A
 * delivery its region refused as unsigned (401) is then a failed authentication of its address,
 * counted as any other (429 once its windows are full); one never refused is never counted there.
 */
export async function forwardSignedDelivery(
  call: GatewayCall,
  operation: Operation,
  request: OperationRequest,
): Promise<Response> {
  checkInboundRequest(operation, request);
  const connectionId = connectionIdOf(request);
  const [route] = await call.controlDb
    .select({ organizationId: organizations.id, region: organizations.region, shard: organizations.shard })
    .from(connectionRoutes)
    .innerJoin(organizations, eq(organizations.id, connectionRoutes.organizationId))
    .where(eq(connectionRoutes.connectionId, connectionId))
    .limit(1);
  if (!route) throw new ApiError("not_found", "Connection not found");
  const window = connectionWindow(connectionId, budgetsOf(call.env));
  const counter = call.env.RATE_LIMITER.get(call.env.RATE_LIMITER.idFromName(window.key));
  const room = await counter.peek(window.limit, window.windowMs);
  if (!room.allowed) throw rateLimited({ ...window, retryAfterMs: room.retryAfterMs });
  const actor: Actor = {
    organizationId: route.organizationId,
    region: route.region,
    shard: route.shard,
    actor: { type: "app", id: connectionId },
    credential: { type: "signature", id: connectionId },
    scopes: [],
    workspaceIds: null,
    organizationRole: null,
  };
  noteActor(call.requestFacts, actor);
  const response = await forwardToRegion(call, operation, actor, request);
  // Invariant: the failed authentications (a window shared with other senders) count a delivery only
  // after its region refused it as unsigned, and its connection's window only one it did not refuse.
  if (response.status === 401) await failedAuthentications(call.env, clientIp(request), deferral(call)).count();
  else if (response.status !== 404) await counter.take(window.limit, window.windowMs);
  return response;
}

/**
 * Keeps the map in step with the regions: a connection the region created (201) is routed from now
 * on, a deleted one (200) no longer. Idempotent replays repeat the same answer, hence the upsert.
 */
export async function trackConnectionRoutes(call: GatewayCall, operation: Operation, actor: Actor, response: Response) {
  if (operation.operationId === "createConnection" && response.status === 201) {
    const { connection } = (await response.clone().json()) as { connection: { id: string } };
    await call.controlDb
      .insert(connectionRoutes)
      .values({ connectionId: connection.id, organizationId: actor.organizationId, createdAt: Date.now() })
      .onConflictDoNothing();
  }
  if (operation.operationId === "deleteConnection" && response.status === 200) {
    const { deletedId } = (await response.clone().json()) as { deletedId: string };
    await call.controlDb.delete(connectionRoutes).where(eq(connectionRoutes.connectionId, deletedId));
  }
}
