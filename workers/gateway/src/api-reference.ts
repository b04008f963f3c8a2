import { toBase64 } from "@crm/contracts";
import { Scalar } from "@scalar/hono-api-reference";
import type { Context } from "hono";
import type { GatewayAppEnv } from "./env";

/**
 * Where Scalar's ESM build is served: by Workers Static Assets from the assets-only `crm-docs-assets`
 * Worker (workers/docs-assets/wrangler.toml; copied there from node_modules by
 * scripts/copy-docs-assets.mjs), which the gateway forwards this prefix to. The page loads nothing
 * from elsewhere, so it works offline and in tests.
 */
export const docsAssetsPrefix = "/docs-assets/";
export const scalarBundlePath = `${docsAssetsPrefix}scalar/standalone.esm.js`;

/**
 * Scripts: the bundle and its chunks from this origin, plus the one inline script that starts it
 * (by nonce). Styles: Scalar renders `style="…"` attributes, which only `'unsafe-inline'` allows (a
 * nonce would turn that off). Requests and images: this origin only (images also inline `data:`);
 * no fonts (the system's are used), no workers, so the try-it client reaches this API and nothing else.
 */
const contentSecurityPolicy = (nonce: string) =>
  [
    "default-src 'none'",
    `script-src 'self' 'nonce-${nonce}'`,
    "style-src 'self' 'unsafe-inline'",
    "connect-src 'self'",
    "img-src 'self' data:",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join("; ");

const nonceBytes = 18;

/**
 * `GET /api/v1/docs`: the API reference (Scalar) over this origin's OpenAPI document, its try-it
 * client sending to this origin's `/api/v1` with the key pasted in as a bearer token. Scalar's
 * features that talk to scalar.com (agent, MCP generator, telemetry, its request proxy, web fonts)
 * are off.
 */
export const apiReferencePage = Scalar((c: Context<GatewayAppEnv>) => {
  const origin = new URL(c.req.url).origin;
  const nonce = toBase64(crypto.getRandomValues(new Uint8Array(nonceBytes)));
  c.header("content-security-policy", contentSecurityPolicy(nonce));
  c.header("referrer-policy", "same-origin");
  c.header("x-content-type-options", "nosniff");
  // The nonce changes with each response, so a cached page would carry a stale one.
  c.header("cache-control", "no-store");
  return {
    pageTitle: "CRM and inbox API reference",
    url: "/api/v1/openapi.json",
    bundle: scalarBundlePath,
    nonce,
    baseServerURL: origin,
    servers: [{ url: `${origin}/api/v1`, description: "This server" }],
    authentication: { preferredSecurityScheme: "ApiKeyBearer" },
    persistAuth: false,
    withDefaultFonts: false,
    telemetry: false,
    agent: { disabled: true },
    mcp: { disabled: true },
    showDeveloperTools: "never",
    showOperationId: true,
    defaultOpenAllTags: true,
    documentDownloadType: "json",
    favicon: "data:,",
  };
});
