import { createGateway } from "./app";
import type { GatewayEnv } from "./env";

export { RateLimiter } from "@crm/rate-limiter";

const gateway = createGateway();

export default {
  fetch: gateway.fetch,
} satisfies ExportedHandler<GatewayEnv>;
