import { createGateway } from "./app";
import type { GatewayEnv } from "./env";
import { receiveEmail } from "./mail/inbound";

export { RateLimiter } from "@crm/rate-limiter";

const gateway = createGateway();

export default {
  fetch: gateway.fetch,
  email: receiveEmail,
} satisfies ExportedHandler<GatewayEnv>;
