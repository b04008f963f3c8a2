import {
  ApiError,
  actorContextHeader,
  catalogue,
  changesData,
  inputNaming,
  jsonRequestBody,
  type Operation,
  respondWithError,
  validationHook,
  verifyActorContext,
  wellFormedQuery,
} from "@crm/contracts";
import { newId } from "@crm/db";
import { OpenAPIHono } from "@hono/zod-openapi";
import { Hono, type MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { entityTags, preconditions } from "./conditional-requests";
import { regionConfig } from "./config";
import { gatewayDirectory } from "./directory";
import { dispatchOutbox } from "./domain/webhooks/dispatch";
import type { AppEnv } from "./env";
import { routeToGateway } from "./gateway-forward";
import { handlers } from "./handlers";
import { idempotency } from "./idempotency";
import { internalRoutes } from "./internal-routes";
import { inboundHandlers } from "./routes/integrations/receive-provider-event";
import { useShard } from "./use-shard";

const maxBodyBytes = 1024 * 1024;

/**
 * Only requests that came through the gateway are served: the signed actor context must verify
 * with this region's own secret, be fresh, and have been issued for this very request — this
 * region, this operation, method and path template, this path and query — so that no context
 * serves another request, another route or another region. The request is then served from the
 * shard the context names, the only database its organization's data is in.
 */
const gatewayContext =
  (operation: Operation): MiddlewareHandler<AppEnv> =>
  async (c, next) => {
    const url = new URL(c.req.url);
    const actor = await verifyActorContext(c.req.header(actorContextHeader), regionConfig(c.env).gatewayContextSecret, {
      region: regionConfig(c.env).region,
      operationId: operation.operationId,
      method: c.req.method,
      path: operation.path,
      target: `${url.pathname}${url.search}`,
    });
    if (!actor) throw new ApiError("unauthorized", "Requests must come through the API gateway");
    c.set("actor", actor);
    c.set("inputNaming", inputNaming(actor.surface, operation));
    c.set("requestId", actor.requestId);
    useShard(c, actor.shard);
    await next();
  };

/**
 * After a successful write, the events it put in the outbox go to the events Queue, off the
 * response path; the cron sweeper catches whatever a crash leaves behind.
 */
const sendEvents: MiddlewareHandler<AppEnv> = async (c, next) => {
  await next();
  if (c.req.method !== "GET" && c.res.status < 300)
    c.executionCtx.waitUntil(dispatchOutbox({ shard: c.var.shard, db: c.var.db }, c.env));
};

/** The regional app; `devRoutes` only from the local stack's entry (`local.ts`), never in production. */
export function createApp(devRoutes?: Hono<AppEnv>) {
  const api = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });

  const app = new Hono<AppEnv>();
  app.use(async (c, next) => {
    // A misconfigured region fails here, at its first request, naming what is wrong.
    regionConfig(c.env);
    c.set("requestId", c.req.header("x-request-id") ?? newId("req"));
    c.set("cursorSecret", regionConfig(c.env).cursorSecret);
    c.set("directory", gatewayDirectory(c.env));
    await next();
  });
  // Inbound mail (up to 25 MiB, checked by the gateway and again by the inbound entry) is not an API body.
  app.use(
    "/api/v1/*",
    bodyLimit({
      maxSize: maxBodyBytes,
      onError: () => {
        throw new ApiError("payload_too_large", "The request body is larger than 1 MiB");
      },
    }),
  );

  for (const operation of catalogue) {
    if (operation.servedBy !== "region") continue;
    const handler = handlers[operation.operationId as keyof typeof handlers];
    // A read has no body, claims no idempotency key and writes no events: those steps would only
    // pass it on (each one a step of every read's path), so a read's route does not take them. A
    // read with a body (`POST /records/query`) takes the body's checks and the key, but writes no
    // events: looking for them after each query was a database read of every such request.
    const hasBody = operation.method !== "get";
    const middleware = [
      gatewayContext(operation),
      wellFormedQuery,
      hasBody ? jsonRequestBody : null,
      entityTags(operation),
      hasBody ? idempotency : null,
      preconditions(operation),
      changesData(operation) ? sendEvents : null,
    ].filter((step) => step !== null);
    // A loop over the catalogue loses the pairing of route and handler types; the handlers map checks it.
    api.openapi({ ...operation.route, middleware }, handler as never);
  }
  for (const operation of catalogue) {
    if (operation.auth !== "signature") continue;
    const handler = inboundHandlers[operation.operationId as keyof typeof inboundHandlers];
    app.post(`/api/v1${operation.path.replace(/\{(\w+)\}/g, ":$1")}`, gatewayContext(operation), sendEvents, handler);
  }
  app.route("/api/v1", api);
  routeToGateway(app);
  if (devRoutes) app.route("/__dev", devRoutes);
  app.route("/__internal", internalRoutes);

  app.notFound((c) => respondWithError(new ApiError("not_found", "No such route"), c, c.var.requestId));
  app.onError((error, c) => respondWithError(error, c, c.var.requestId ?? newId("req"), c.var.inputNaming));
  return app;
}
