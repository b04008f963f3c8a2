import { Hono } from "hono";
import { gatewayConfig } from "../config";
import type { GatewayAppEnv } from "../env";
import { rotateSigningKey } from "../identity/signing-keys";

/** `POST /__dev/oauth/rotate-signing-key`: publishes a successor key now, which signs a JWKS cache lifetime later (local stack and tests). */
export const oauthDevRoutes = new Hono<GatewayAppEnv>().post("/rotate-signing-key", async (c) => {
  return c.json({ kid: await rotateSigningKey(c.var.controlDb, gatewayConfig(c.env).identitySecret) });
});
