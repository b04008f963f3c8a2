import {
  ApiError,
  catalogue,
  type GatewayOperationId,
  type Operation,
  removedRoutes,
  respondWithError,
  validationHook,
} from "@crm/contracts";
import { newId } from "@crm/db";
import { OpenAPIHono } from "@hono/zod-openapi";
import { drizzle } from "drizzle-orm/d1";
import { type Context, Hono, type MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { authenticateApiKey, bearerToken, insufficientScope, needsLookup } from "./authenticate";
import { docsPage } from "./docs-page";
import { assertGatewayEnv, type GatewayAppEnv } from "./env";
import { forwardToRegion } from "./forward";
import { gatewayHandlers } from "./handlers";
import { openApiDocumentFor } from "./openapi";
import { clientIpWindow, limitRate } from "./rate-limits";
import { allowedMethods } from "./route-matcher";
import { seedRoutes } from "./seed/route";
import { recordUse } from "./usage";

const maxBodyBytes = 1024 * 1024;

/** The display value of integer cost units: 20 → "0.2". */
const displayCost = (units: number) => String(units / 100);

/**
 * Authenticates the bearer token. Failed attempts count against the client IP's window, and a
 * token that would need a database lookup is first checked against that window (DESIGN.md
 * section 4: unauthenticated requests meet the IP window before any lookup).
 */
async function authenticateRequest(c: Context<GatewayAppEnv>): Promise<GatewayAppEnv["Variables"]["actor"]> {
  const clientIp = clientIpWindow(c.env, c.req.header("cf-connecting-ip") ?? "unknown");
  try {
    const token = bearerToken(c.req.header("authorization"));
    if (needsLookup(token)) await clientIp.guard();
    return await authenticateApiKey(c.var.controlDb, token);
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) await clientIp.countFailure();
    throw error;
  }
}

/**
 * Authenticates the bearer token and applies the `X-Service-Organization-Id` rule. After the
 * response: `X-Token-Cost` (charged on 2xx only), and the credential's use recorded off the
 * response path (lastUsedAt, activity row, token-usage ledger).
 */
const authenticate =
  (operation: Operation): MiddlewareHandler<GatewayAppEnv> =>
  async (c, next) => {
    const actor = await authenticateRequest(c);
    const requestedOrganization = c.req.header("x-service-organization-id");
    if (requestedOrganization !== undefined && requestedOrganization !== actor.organizationId) {
      throw new ApiError("organization_mismatch", "X-Service-Organization-Id names another organization than the API key's");
    }
    c.set("actor", actor);
    await next();
    const status = c.res.status;
    const charged = status >= 200 && status < 300 ? operation.costUnits : 0;
    c.header("x-token-cost", displayCost(charged));
    const use = {
      organizationId: actor.organizationId,
      apiKeyId: actor.credential.type === "api_key" ? actor.credential.id : null,
      method: c.req.method,
      route: operation.path,
      status,
      ip: c.req.header("cf-connecting-ip") ?? null,
      at: Date.now(),
      costUnits: charged,
    };
    recordUse(c.var.controlDb, use, (promise) => c.executionCtx.waitUntil(promise));
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

  const api = new OpenAPIHono<GatewayAppEnv>({ defaultHook: validationHook });
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
    const [authenticated, limited, authorized] = [authenticate(operation), limitRate(operation), requireScope(operation)];
    if (operation.servedBy === "gateway") {
      const handler = gatewayHandlers[operation.operationId as GatewayOperationId];
      // A loop over the catalogue loses the pairing of route and handler types; the handlers map checks it.
      api.openapi({ ...operation.route, middleware: [authenticated, limited, authorized] }, handler as never);
    } else {
      const path = operation.route.getRoutingPath();
      api.on(operation.method.toUpperCase(), path, authenticated, limited, authorized, (c) => forwardToRegion(c, operation));
    }
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
