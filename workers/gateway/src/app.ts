import { ApiError, catalogue, type Operation, removedRoutes, respondWithError } from "@crm/contracts";
import { newId } from "@crm/db";
import { drizzle } from "drizzle-orm/d1";
import { Hono, type MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { recordKeyActivity } from "./activity";
import { authenticateApiKey, bearerToken, insufficientScope } from "./authenticate";
import { docsPage } from "./docs-page";
import { assertGatewayEnv, type GatewayAppEnv } from "./env";
import { forwardToRegion } from "./forward";
import { openApiDocumentFor } from "./openapi";
import { allowedMethods } from "./route-matcher";
import { seedRoutes } from "./seed/route";

const maxBodyBytes = 1024 * 1024;

/**
 * Authenticates the bearer token, applies the `X-Service-Organization-Id` rule, and records the
 * key's use (lastUsedAt + activity row) after the response, whatever its status.
 */
const authenticate =
  (operation: Operation): MiddlewareHandler<GatewayAppEnv> =>
  async (c, next) => {
    const token = bearerToken(c.req.header("authorization"));
    const actor = await authenticateApiKey(c.var.controlDb, token);
    const requestedOrganization = c.req.header("x-service-organization-id");
    if (requestedOrganization !== undefined && requestedOrganization !== actor.organizationId) {
      throw new ApiError("organization_mismatch", "X-Service-Organization-Id names another organization than the API key's");
    }
    c.set("actor", actor);
    await next();
    const use = {
      apiKeyId: actor.credential.id,
      method: c.req.method,
      route: operation.path,
      status: c.res.status,
      ip: c.req.header("cf-connecting-ip") ?? null,
      at: Date.now(),
    };
    c.executionCtx.waitUntil(
      recordKeyActivity(c.var.controlDb, use).catch((error: unknown) =>
        console.error(JSON.stringify({ requestId: c.var.requestId, activity: String(error) })),
      ),
    );
  };

const requireScope =
  (operation: Operation): MiddlewareHandler<GatewayAppEnv> =>
  async (c, next) => {
    if (operation.scope && !c.var.actor.scopes.includes(operation.scope)) throw insufficientScope(operation.scope);
    await next();
  };

export function createGateway() {
  const app = new Hono<GatewayAppEnv>();
  app.use(async (c, next) => {
    assertGatewayEnv(c.env);
    c.set("requestId", newId("req"));
    c.set("controlDb", drizzle(c.env.CONTROL_DB));
    await next();
    c.header("x-request-id", c.var.requestId);
  });

  const api = new Hono<GatewayAppEnv>();
  api.use(
    bodyLimit({
      maxSize: maxBodyBytes,
      onError: () => {
        throw new ApiError("payload_too_large", "The request body is larger than 1 MiB");
      },
    }),
  );
  api.get("/openapi.json", (c) => c.json(openApiDocumentFor(new URL(c.req.url).origin)));
  api.get("/docs", (c) => c.html(docsPage(openApiDocumentFor(new URL(c.req.url).origin))));
  for (const removed of removedRoutes) {
    api.on(removed.method, removed.path, () => {
      throw new ApiError("route_removed", `${removed.method} ${removed.path} was removed from the API; see the change log`);
    });
  }
  for (const operation of catalogue) {
    api.on(
      operation.method.toUpperCase(),
      operation.route.getRoutingPath(),
      authenticate(operation),
      requireScope(operation),
      (c) => forwardToRegion(c, operation),
    );
  }
  app.route("/api/v1", api);
  app.route("/__dev", seedRoutes);

  app.notFound((c) => {
    const path = new URL(c.req.url).pathname;
    const allowed = path.startsWith("/api/v1/") ? allowedMethods(path.slice("/api/v1".length)) : [];
    if (allowed.length > 0) {
      const error = new ApiError(
        "method_not_allowed",
        `${c.req.method} is not allowed here; use ${allowed.join(", ")}`,
        undefined,
        {
          allow: allowed.join(", "),
        },
      );
      return respondWithError(error, c, c.var.requestId);
    }
    return respondWithError(new ApiError("not_found", "No such route"), c, c.var.requestId);
  });
  app.onError((error, c) => respondWithError(error, c, c.var.requestId ?? newId("req")));
  return app;
}
