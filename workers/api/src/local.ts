import { devToolsOnly } from "@crm/contracts";
import { Hono } from "hono";
import { createApp } from "./app";
import type { AppEnv } from "./env";
import { seedRoutes } from "./seed/route";
import { regionalWorker } from "./worker";

export { WebhookBurst } from "./domain/webhooks/burst";
export { WebhookEndpoint } from "./domain/webhooks/endpoint-lane";

/** The local stack's, the tests' and the benchmarks' entry: the production Worker plus `/__dev` (the seed), with DEV_TOOLS on. */
const devRoutes = new Hono<AppEnv>().use(devToolsOnly<AppEnv>()).route("/", seedRoutes);

export default regionalWorker(createApp(devRoutes));
