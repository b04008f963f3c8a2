import type { GatewayOperationId, operations } from "@crm/contracts";
import type { RouteHandler } from "@hono/zod-openapi";
import type { HandlerEnv } from "./env";
import { createApiKey, getApiKey, listApiKeys, replaceApiKey, revokeApiKey } from "./routes/api-keys";
import { confirmUnsubscribe } from "./routes/confirm-unsubscribe";
import { getChangelog } from "./routes/get-changelog";
import { getUsage } from "./routes/get-usage";
import { getIntegration, listIntegrations } from "./routes/public-integrations";
import { showUnsubscribe } from "./routes/show-unsubscribe";

/** Handlers of the operations the gateway serves itself (control-plane data); one per such operation. */
export const gatewayHandlers: {
  [Id in GatewayOperationId]: RouteHandler<(typeof operations)[Id]["route"], HandlerEnv<(typeof operations)[Id]["auth"]>>;
} = {
  getUsage,
  listApiKeys,
  createApiKey,
  getApiKey,
  revokeApiKey,
  replaceApiKey,
  showUnsubscribe,
  confirmUnsubscribe,
  listIntegrations,
  getIntegration,
  getChangelog,
};
