import type { ContextActor } from "@crm/contracts";

/**
 * Who is calling, as authentication established it: the actor context the regions receive, less
 * what names one request (operation, method, path, target, request id, time). Its own module, below
 * every step and the gateway's environment, which all name it. Never changed once made: the gateway
 * keeps an API key's actor with the key, and the actor's part of the signed context with the actor.
 */
export type Actor = ContextActor;
