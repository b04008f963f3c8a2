import { createGateway } from "./app";
import type { GatewayEnv } from "./env";

const gateway = createGateway();

export default {
  fetch: gateway.fetch,
} satisfies ExportedHandler<GatewayEnv>;
