import { devToolsOnly } from "@crm/contracts";
import { Hono } from "hono";
import type { GatewayAppEnv } from "./env";
import { oauthDevRoutes } from "./oauth/dev-routes";
import { limiterCallsRoutes } from "./pipeline/limiter-calls-route";
import { seedRoutes } from "./seed/route";

/**
 * The gateway's development-only routes, under `/__dev`: the demo seed, a signing-key rotation, the
 * limiter's call count. Only `local.ts` (the local stack's and the tests' entry) imports this file,
 * so none of it is in the production bundle; and DEV_TOOLS must be on as well.
 */
export const devRoutes = new Hono<GatewayAppEnv>()
  .use(devToolsOnly<GatewayAppEnv>())
  .route("/", seedRoutes)
  .route("/oauth", oauthDevRoutes)
  .route("/", limiterCallsRoutes);
