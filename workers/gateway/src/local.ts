import { createGateway, gatewayWorker } from "./app";
import { devRoutes } from "./dev-routes";

export { RateLimiter } from "@crm/rate-limiter";

/** The entry of the local stack, the tests and the benchmarks (wrangler.toml): the production gateway plus `/__dev`. */
export default gatewayWorker(createGateway(devRoutes));
