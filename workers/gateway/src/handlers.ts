import type { AuthKind, GatewayOperationId, operations } from "@crm/contracts";
import type { RouteHandler } from "@hono/zod-openapi";
import type { GatewayAppEnv } from "./env";
import { createApiKey, getApiKey, listApiKeys, replaceApiKey, revokeApiKey } from "./routes/api-keys";
import { confirmUnsubscribe } from "./routes/confirm-unsubscribe";
import { getChangelog } from "./routes/get-changelog";
import { getUsage } from "./routes/get-usage";
import { getIntegration, listIntegrations } from "./routes/public-integrations";
import { showUnsubscribe } from "./routes/show-unsubscribe";

/** A bearer or session operation's handler sees the actor; a public or signed one has none to see. */
export type HandlerEnv<A extends AuthKind> = A extends "bearer" | "session"
  ? GatewayAppEnv
  : { Bindings: GatewayAppEnv["Bindings"]; Variables: Omit<GatewayAppEnv["Variables"], "actor"> };

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
