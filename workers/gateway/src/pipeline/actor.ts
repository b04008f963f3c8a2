import type { ActorContext } from "@crm/contracts";

/**
 * Who is calling, as authentication established it: the actor context the regions receive, less
 * what names one request (operation, method, path, target, request id, time). Its own module, below
 * every step and the gateway's environment, which all name it.
 */
export type Actor = Omit<ActorContext, "requestId" | "operationId" | "method" | "path" | "target" | "surface" | "issuedAt">;
