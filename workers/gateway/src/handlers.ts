import type { GatewayOperationId, operations } from "@crm/contracts";
import type { RouteHandler } from "@hono/zod-openapi";
import type { GatewayAppEnv } from "./env";
import { getUsage } from "./routes/get-usage";

/** Handlers of the operations the gateway serves itself (control-plane data); one per such operation. */
export const gatewayHandlers: { [Id in GatewayOperationId]: RouteHandler<(typeof operations)[Id]["route"], GatewayAppEnv> } = {
  getUsage,
};
