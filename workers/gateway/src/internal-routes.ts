import { ApiError, isRegion, validationHook, verifyDirectoryQuery } from "@crm/contracts";
import { type Context, Hono } from "hono";
import { gatewayConfig } from "./config";
import { contextSecret, type GatewayAppEnv } from "./env";
import { directoryEntries } from "./organizations/directory";
import { failedAuthentications } from "./pipeline/authenticate";
import { type SsoConnectionPush, ssoConnectionPush, storeSsoConnection } from "./sso/connection-store";
import { verifySsoPush } from "./sso/signature";

/** An SSO connection is a few hundred bytes; a hundred domains stay far below this. */
const maxPushBytes = 64 * 1024;
const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

/** The body through the API's one validation hook: the same 400 and details as every route, lone surrogates refused too. */
function validPush(json: unknown): SsoConnectionPush {
  const parsed = ssoConnectionPush.safeParse(json);
  if (parsed.success) {
    validationHook({ success: true, target: "json", data: json });
    return parsed.data;
  }
  validationHook({ success: false, target: "json", data: json, error: parsed.error });
  // The hook has thrown: a failed parse always has issues.
  throw parsed.error;
}

/** Where the internal routes are mounted under `/api/v1`. */
export const internalRoutesPrefix = "/internal";

/**
 * Routes for the platform's own services, outside the route catalogue and so outside the public
 * OpenAPI document, the MCP tools and the auth matrix; each authenticates its caller itself.
 *
 * `POST /api/v1/internal/sso/store` (DESIGN.md section 12): the identity service pushes an
 * organization's SSO connection, signed with `SSO_STORE_SECRET`. Order: the client's window of
 * failed authentications (429 once full; every 401 here counts against it, as a bad credential does
 * anywhere, so the secret cannot be guessed at speed), size (413), signature and timestamp (401),
 * media type (415), JSON and schema (400), organization (404), then the nonce's single use and the
 * store in one batch (a replay is 401 and stores nothing).
 */
export const internalRoutes = new Hono<GatewayAppEnv>()
  .post("/sso/store", async (c) => {
    const failures = failedAuthentications(c.env, c.req.header("cf-connecting-ip") ?? "unknown");
    await failures.guard();
    return failures.counting(() => storePush(c));
  })
  /**
   * `POST /api/v1/internal/directory?region=<region>`: a region asks for the people it shows
   * (`packages/contracts/src/directory.ts`), the body a query signed with that region's own context
   * secret; anything else is 401 before any read. Not behind the window of failed authentications:
   * a region's calls carry no client address and must not share a window with anonymous clients,
   * and a refused query costs one HMAC check, with no storage read to spare.
   */
  .post("/directory", async (c) => {
    const region = c.req.query("region") ?? "";
    const token = await c.req.text();
    const query = isRegion(region) ? await verifyDirectoryQuery(token, region, contextSecret(c.env, region)) : null;
    if (!query) throw new ApiError("unauthorized", "Directory queries must be signed by a region");
    return c.json({ entries: await directoryEntries(c.var.controlDb, query) });
  });

async function storePush(c: Context<GatewayAppEnv>) {
  const body = await c.req.arrayBuffer();
  if (body.byteLength > maxPushBytes)
    throw new ApiError("payload_too_large", `An SSO connection push is at most ${maxPushBytes / 1024} KiB`);
  const now = Date.now();
  const signed = await verifySsoPush(gatewayConfig(c.env).ssoStoreSecret, c.req.raw.headers, body, now);
  if (!/^application\/json\s*(;|$)/i.test(c.req.header("content-type") ?? ""))
    throw new ApiError("unsupported_media_type", "The body must be application/json");
  let json: unknown;
  try {
    json = JSON.parse(strictUtf8.decode(body));
  } catch {
    throw new ApiError("invalid_request", "The body is not valid JSON in UTF-8");
  }
  const connection = await storeSsoConnection(c.var.controlDb, validPush(json), signed, now);
  return c.json({ connection });
}
