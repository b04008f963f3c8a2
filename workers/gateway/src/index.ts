import { createGateway, gatewayWorker } from "./app";

export { RateLimiter } from "@crm/rate-limiter";

/** The production entry: no development route is imported, so none is bundled (`local.ts` is the local stack's). */
export default gatewayWorker(createGateway());
