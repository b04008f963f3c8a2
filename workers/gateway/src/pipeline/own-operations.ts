import {
  ApiError,
  catalogue,
  inputNaming,
  jsonRequestBody,
  respondWithError,
  type Surface,
  validationHook,
  wellFormedQuery,
} from "@crm/contracts";
import { OpenAPIHono } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import type { GatewayAppEnv } from "../env";
import { gatewayHandlers } from "../handlers";
import type { Actor } from "./actor";
import type { GatewayCall, OperationRequest } from "./operation-call";

/** The call and actor of each request handed to the gateway's own handlers, for as long as it is served. */
const callers = new WeakMap<Request, { call: GatewayCall; actor: Actor | null; surface: Surface }>();

/**
 * The operations the gateway serves itself (control-plane data such as the usage ledger), as one
 * in-process app with the same validation as the regional Worker's. Not reachable from outside:
 * only `serveOwnOperation` hands it requests, after the pipeline's earlier steps. Made on the first
 * such request: its routes' schemas were a share of the gateway's startup (issue 30 item 7), and most
 * isolates serve none of these operations.
 */
function makeOwnOperations() {
  const app = new OpenAPIHono<GatewayAppEnv>({ defaultHook: validationHook }).basePath("/api/v1");
  app.use(async (c, next) => {
    const caller = callers.get(c.req.raw);
    if (!caller) throw new Error("The gateway's own operations are served only through the pipeline");
    c.set("requestId", caller.call.requestId);
    c.set("controlDb", caller.call.controlDb);
    c.set("requestFacts", caller.call.requestFacts);
    // Public and signed operations have no actor; their handlers are typed without one (handlers.ts).
    if (caller.actor) c.set("actor", caller.actor);
    await next();
  });
  for (const operation of catalogue) {
    // Signed inbound webhooks pass through the gateway to their connection's region (inbound.ts).
    if (operation.servedBy !== "gateway" || operation.auth === "signature") continue;
    const handler = gatewayHandlers[operation.operationId as keyof typeof gatewayHandlers];
    // JSON routes read their body as every JSON route does; a form route (the unsubscribe one-click POST) its own way.
    const request = operation.route.request;
    const body = request && "body" in request ? request.body : undefined;
    const takesJson = body === undefined || "application/json" in body.content;
    const named: MiddlewareHandler<GatewayAppEnv> = async (c, next) => {
      c.set("inputNaming", inputNaming(callers.get(c.req.raw)?.surface ?? "api", operation));
      await next();
    };
    const middleware = takesJson ? [named, wellFormedQuery, jsonRequestBody] : [named, wellFormedQuery];
    // A loop over the catalogue loses the pairing of route and handler types; the handlers map checks it.
    app.openapi({ ...operation.route, middleware }, handler as never);
  }
  app.notFound(() => {
    throw new ApiError("not_found", "No such route");
  });
  app.onError((error, c) => respondWithError(error, c, c.var.requestId, c.var.inputNaming));
  return app;
}

let ownOperations: ReturnType<typeof makeOwnOperations> | undefined;

/** Serves an operation of the gateway's own handlers, in process: no HTTP round trip. */
export function serveOwnOperation(call: GatewayCall, actor: Actor | null, request: OperationRequest): Promise<Response> {
  const own = new Request(request.url, { method: request.method, headers: request.headers, body: request.body });
  callers.set(own, { call, actor, surface: request.surface ?? "api" });
  ownOperations ??= makeOwnOperations();
  return Promise.resolve(ownOperations.fetch(own, call.env, call.executionCtx));
}
