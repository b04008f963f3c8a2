import { ApiError, catalogue, removedRoutes, respondWithError } from "@crm/contracts";
import { databaseOf, newId } from "@crm/db";
import { type Context, Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { apiReferencePage, docsAssetsPrefix } from "./api-reference";
import { gatewayConfig } from "./config";
import { consoleApp } from "./console/console-app";
import type { GatewayAppEnv, GatewayEnv } from "./env";
import { internalRoutes, internalRoutesPrefix } from "./internal-routes";
import { loopbackHostsOnly } from "./local-stack-hosts";
import { receiveEmail } from "./mail/inbound";
import { serveMcp } from "./mcp/endpoint";
import { apiResource } from "./oauth/resources";
import { oauthRoutes } from "./oauth/routes";
import { openApiTextFor } from "./openapi";
import { withResourceMetadata } from "./pipeline/credential-errors";
import { gatewayCall, type OperationRequest } from "./pipeline/operation-call";
import { runOperation } from "./pipeline/run-operation";
import { requestLog } from "./request-log";
import { allowedMethods, methodNotAllowed, shadowedRoutes } from "./route-matcher";
import { refuseDeadCredential } from "./unrouted-credential";

const maxBodyBytes = 1024 * 1024;

/** The request as received; the body is read once, within the body limit, and forwarded as these bytes. */
async function operationRequest(c: Context<GatewayAppEnv>): Promise<OperationRequest> {
  const hasBody = c.req.method !== "GET" && c.req.method !== "HEAD";
  return {
    method: c.req.method,
    url: new URL(c.req.url),
    headers: c.req.raw.headers,
    body: hasBody ? await c.req.arrayBuffer() : null,
  };
}

/** The gateway's app; `devRoutes` only from the local stack's entry (`local.ts`), never in production. */
export function createGateway(devRoutes?: Hono<GatewayAppEnv>) {
  const app = new Hono<GatewayAppEnv>();
  app.use(requestLog);
  // The reference page's static files, as they are: no configuration, database or host check needed.
  app.on(["GET", "HEAD"], `${docsAssetsPrefix}*`, (c) => c.env.DOCS_ASSETS.fetch(c.req.raw));
  app.use(async (c, next) => {
    // A misconfigured gateway fails here, at its first request, naming what is wrong.
    gatewayConfig(c.env);
    c.set("controlDb", databaseOf(c.env.CONTROL_DB));
    await next();
  });

  // The MCP endpoint is `<origin>/mcp` (its own OAuth resource), and the same under `{base_url}` for
  // clients configured with it; ahead of the REST routes, whose body limit answers in the REST envelope.
  app.all("/mcp", serveMcp);
  app.all("/api/v1/mcp", serveMcp);
  // Every other route of the local stack: loopback hosts only (the MCP endpoint checks its Host and
  // Origin itself, answering in JSON-RPC as MCP clients expect).
  app.use(loopbackHostsOnly);

  const api = new Hono<GatewayAppEnv>();
  api.use(
    bodyLimit({
      maxSize: maxBodyBytes,
      onError: () => {
        throw new ApiError("payload_too_large", "The request body is larger than 1 MiB");
      },
    }),
  );
  api.get("/openapi.json", (c) => c.body(openApiTextFor(new URL(c.req.url).origin), 200, { "content-type": "application/json" }));
  api.get("/docs", apiReferencePage);
  for (const removed of removedRoutes) {
    api.on(removed.method, removed.path, () => {
      throw new ApiError("route_removed", `${removed.method} ${removed.path} was removed from the API; see the change log`);
    });
  }
  for (const shadowed of shadowedRoutes) {
    api.on(shadowed.method, shadowed.routingPath, async (c) => {
      await refuseDeadCredential(c);
      throw methodNotAllowed(c.req.method, allowedMethods(new URL(c.req.url).pathname.slice("/api/v1".length)));
    });
  }
  // The REST routes are thin glue: each runs its catalogue operation through the pipeline.
  for (const operation of catalogue) {
    api.on(operation.method.toUpperCase(), operation.routingPath, async (c) =>
      runOperation(gatewayCall(c), operation, await operationRequest(c)),
    );
  }
  // Outside the catalogue, hence not in the public document: routes for the platform's own services.
  api.route(internalRoutesPrefix, internalRoutes);
  app.route("/api/v1", api);
  // The OAuth server lives at the origin, not under /api/v1: its issuer is the origin (DESIGN.md section 3).
  app.route("/", oauthRoutes);
  if (devRoutes) app.route("/__dev", devRoutes);
  app.route("/console", consoleApp());

  app.notFound(async (c) => {
    const path = new URL(c.req.url).pathname;
    if (path.startsWith("/api/v1/")) await refuseDeadCredential(c);
    const allowed = path.startsWith("/api/v1/") ? allowedMethods(path.slice("/api/v1".length)) : [];
    if (allowed.length > 0) return respondWithError(methodNotAllowed(c.req.method, allowed), c, c.var.requestId);
    return respondWithError(new ApiError("not_found", "No such route"), c, c.var.requestId);
  });
  // A REST challenge names the API's protected-resource metadata (RFC 9728); MCP answers its own.
  app.onError((error, c) =>
    respondWithError(
      withResourceMetadata(error, apiResource(new URL(c.req.url).origin), true),
      c,
      c.var.requestId ?? newId("req"),
    ),
  );
  return app;
}

/** The Worker of a gateway app: its HTTP routes and the mailboxes' inbound mail. */
export const gatewayWorker = (app: Hono<GatewayAppEnv>) =>
  ({ fetch: app.fetch, email: receiveEmail }) satisfies ExportedHandler<GatewayEnv>;
