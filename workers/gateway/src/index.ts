import { createGateway } from "./app";
import type { GatewayEnv } from "./env";

export { UsageRecorder } from "./usage-recorder";

const gateway = createGateway();

export default {
  fetch: gateway.fetch,
} satisfies ExportedHandler<GatewayEnv>;
