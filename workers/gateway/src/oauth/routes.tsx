import { ApiError } from "@crm/contracts";
import { type Context, Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { gatewayConfig } from "../config";
import type { GatewayAppEnv } from "../env";
import { jwksCacheMs, jwksDocument } from "../identity/signing-keys";
import { answerConsent, pageHeaders, showAuthorization } from "./authorization-endpoint";
import { AuthorizationPageError, AuthorizationRedirectError, redirectTo } from "./authorization-request";
import { admitOAuthClient } from "./client-rate-limit";
import type { TokenIssuer } from "./grants";
import { authorizationServerMetadata, protectedResourceMetadata } from "./metadata";
import { noStore, OAuthError, oauthErrorResponse } from "./oauth-error";
import { AuthorizationErrorPage } from "./pages";
import { registrationEndpoint } from "./registration-endpoint";
import { apiResource, mcpApiResource, mcpResource } from "./resources";
import { revocationEndpoint } from "./revocation-endpoint";
import { tokenEndpoint } from "./token-endpoint";

const originOf = (c: Context) => new URL(c.req.url).origin;

const issuerFor = (c: Context<GatewayAppEnv>): TokenIssuer => ({
  db: c.var.controlDb,
  secret: gatewayConfig(c.env).identitySecret,
  origin: originOf(c),
  now: Date.now(),
});

/** OAuth request bodies are a few parameters; anything near this size is not one. */
const maxOAuthBodyBytes = 16 * 1024;
const oauthBodyLimit = bodyLimit({
  maxSize: maxOAuthBodyBytes,
  onError: (c) =>
    oauthErrorResponse(new OAuthError("invalid_request", "The request body is larger than 16 KiB"), c.get("requestId")),
});

/** RFC 6749 error bodies for the JSON endpoints (token, register, revoke). */
async function asOAuthEndpoint(c: Context<GatewayAppEnv>, handle: () => Promise<Response>): Promise<Response> {
  try {
    return await handle();
  } catch (error) {
    if (error instanceof OAuthError) return oauthErrorResponse(error, c.var.requestId);
    throw error;
  }
}

/** The browser-facing authorization endpoint: a page for what may not be redirected, a redirect for what may. */
async function asAuthorizationPage(c: Context<GatewayAppEnv>, handle: () => Promise<Response>): Promise<Response> {
  try {
    return await handle();
  } catch (error) {
    if (error instanceof AuthorizationPageError)
      return c.html(<AuthorizationErrorPage title={error.title} description={error.description} />, error.status, pageHeaders);
    if (error instanceof AuthorizationRedirectError) {
      const { redirectUri, state, error: cause } = error;
      const location = redirectTo(redirectUri, originOf(c), { error: cause.code, error_description: cause.description, state });
      return c.redirect(location, c.req.method === "GET" ? 302 : 303);
    }
    throw error;
  }
}

/**
 * The OAuth 2.1 authorization server (DESIGN.md section 3) at the gateway's origin: `/oauth/*` and
 * the discovery documents under `/.well-known/`.
 */
export const oauthRoutes = new Hono<GatewayAppEnv>()
  .get("/oauth/authorize", (c) => asAuthorizationPage(c, () => showAuthorization(c)))
  .post(
    "/oauth/authorize",
    bodyLimit({
      maxSize: maxOAuthBodyBytes,
      onError: (c) =>
        c.html(
          <AuthorizationErrorPage title="Form too large" description="The consent form is larger than it can be." />,
          413,
          pageHeaders,
        ),
    }),
    (c) => asAuthorizationPage(c, () => answerConsent(c)),
  )
  .post("/oauth/token", oauthBodyLimit, (c) =>
    asOAuthEndpoint(c, async () => {
      await admitOAuthClient(c.env, c.req.raw, c.executionCtx);
      return c.json(await tokenEndpoint(issuerFor(c), c.req.raw), 200, noStore);
    }),
  )
  .post("/oauth/register", oauthBodyLimit, (c) =>
    asOAuthEndpoint(c, async () => {
      await admitOAuthClient(c.env, c.req.raw, c.executionCtx);
      return c.json(await registrationEndpoint(c.var.controlDb, c.req.raw), 201, noStore);
    }),
  )
  .post("/oauth/revoke", oauthBodyLimit, (c) =>
    asOAuthEndpoint(c, async () => {
      await admitOAuthClient(c.env, c.req.raw, c.executionCtx);
      await revocationEndpoint(issuerFor(c), c.req.raw);
      return c.body(null, 200, noStore);
    }),
  )
  .get("/.well-known/oauth-authorization-server", (c) => c.json(authorizationServerMetadata(originOf(c))))
  .get("/.well-known/oauth-protected-resource", (c) => c.json(protectedResourceMetadata(originOf(c), apiResource(originOf(c)))))
  // RFC 9728 section 3.1: each resource's document also lives at the path derived from it.
  .get("/.well-known/oauth-protected-resource/api/v1", (c) =>
    c.json(protectedResourceMetadata(originOf(c), apiResource(originOf(c)))),
  )
  .get("/.well-known/oauth-protected-resource/mcp", (c) =>
    c.json(protectedResourceMetadata(originOf(c), mcpResource(originOf(c)))),
  )
  .get("/.well-known/oauth-protected-resource/api/v1/mcp", (c) =>
    c.json(protectedResourceMetadata(originOf(c), mcpApiResource(originOf(c)))),
  )
  .get("/.well-known/jwks.json", async (c) =>
    // A key signs only after it has been published this long (signing-keys.ts), so a cached copy never lacks it.
    c.json(await jwksDocument(c.var.controlDb, gatewayConfig(c.env).identitySecret), 200, {
      "cache-control": `public, max-age=${jwksCacheMs / 1000}`,
    }),
  );

// The form endpoints take POST only; another method is told so (405 with Allow), not "no such route".
for (const path of ["/oauth/token", "/oauth/register", "/oauth/revoke"]) {
  oauthRoutes.on(["GET", "HEAD", "PUT", "PATCH", "DELETE"], path, (c) => {
    throw new ApiError("method_not_allowed", `${c.req.method} is not allowed here; use POST`, undefined, { allow: "POST" });
  });
}
