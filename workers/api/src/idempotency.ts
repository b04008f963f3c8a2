import { ApiError, chargedUnitsHeader } from "@crm/contracts";
import { regional } from "@crm/db";
import { and, eq, lt, or } from "drizzle-orm";
import type { Context, MiddlewareHandler } from "hono";
import type { AppEnv, ResponseSecrets } from "./env";

const { idempotencyKeys } = regional;

const retentionMs = 24 * 60 * 60 * 1000;
/** How long an in-flight claim holds before it is taken to be abandoned by a dead Worker. */
const inFlightLockMs = 60_000;
const writeMethods = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** `Idempotency-Key` is 1–200 characters, bare or as a quoted string. */
export function parseIdempotencyKey(header: string): string {
  const key = header.length >= 2 && header.startsWith('"') && header.endsWith('"') ? header.slice(1, -1) : header;
  if (key.length < 1 || key.length > 200) {
    throw new ApiError("invalid_idempotency_key", "Idempotency-Key must be 1 to 200 characters long");
  }
  return key;
}

/** JSON with object keys sorted, so the same request written in another key order hashes the same. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/** The body as hashed. No body and `{}` are the same request: a route without a body takes either (DESIGN.md section 2). */
function canonicalBody(body: string): string {
  if (body === "") return "{}";
  try {
    return canonicalJson(JSON.parse(body));
  } catch {
    // Not JSON: the validator will refuse it; hash the raw text meanwhile.
    return body;
  }
}

/** What makes two requests the same: method, path with query, and canonical body. Tests claim keys with it too. */
export async function requestHash(method: string, url: URL, body: string): Promise<string> {
  const digest = await crypto.subtle.digest(
    "SHA-256",
    new TextEncoder().encode(`${method} ${url.pathname}${url.search}\n${canonicalBody(body)}`),
  );
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

/**
 * Marks secrets in this request's response: the client sees them in this response only. The
 * idempotency record keeps the response for 24 hours, so it keeps them null with `notice` beside
 * them, and a replay never hands a secret out again.
 */
export function keepSecretsFromReplay(c: Context<AppEnv>, secrets: ResponseSecrets): void {
  c.set("responseSecrets", secrets);
}

/** The response body as the idempotency record keeps it: marked secrets null, the notice beside them. */
function replayableBody(body: string, secrets: ResponseSecrets | undefined): string {
  if (!secrets) return body;
  const response = JSON.parse(body) as Record<string, unknown>;
  for (const property of secrets.properties) if (Object.hasOwn(response, property)) response[property] = null;
  return JSON.stringify({ ...response, notice: secrets.notice });
}

/**
 * A stored response as this request answers it: an error's `requestId` is this request's, as its
 * `X-Request-Id` is (the first request's id travels in `Original-Request-Id`).
 */
function replayedBody(body: string | null, requestId: string): string | null {
  if (!body) return body;
  const response = JSON.parse(body) as { error?: { requestId?: string } };
  if (!response.error?.requestId) return body;
  return JSON.stringify({ ...response, error: { ...response.error, requestId } });
}

/**
 * Idempotency for every write (DESIGN.md section 5). The first request with a key claims it; a
 * replay of the same request gets the stored status and body with `Idempotent-Replayed: true`
 * and the first request's id in `Original-Request-Id`
 * and runs nothing (so it emits no second event). 5xx and 429 results are not kept, nor secrets
 * (see `keepSecretsFromReplay`).
 */
export const idempotency: MiddlewareHandler<AppEnv> = async (c, next) => {
  const header = c.req.header("idempotency-key");
  if (header === undefined || !writeMethods.has(c.req.method)) return next();
  const key = parseIdempotencyKey(header);
  const { db, actor } = c.var;
  const hash = await requestHash(c.req.method, new URL(c.req.url), await c.req.text());
  const now = Date.now();
  const identity = {
    organizationId: actor.organizationId,
    credentialId: actor.credential.id,
    key,
  };
  const claimed = await db
    .insert(idempotencyKeys)
    .values({
      ...identity,
      requestHash: hash,
      requestId: c.var.requestId,
      state: "in_flight",
      lockedUntil: now + inFlightLockMs,
      expiresAt: now + retentionMs,
    })
    .onConflictDoUpdate({
      target: [idempotencyKeys.organizationId, idempotencyKeys.credentialId, idempotencyKeys.key],
      set: {
        requestHash: hash,
        requestId: c.var.requestId,
        state: "in_flight",
        responseStatus: null,
        responseBody: null,
        lockedUntil: now + inFlightLockMs,
        expiresAt: now + retentionMs,
      },
      // Take over only an expired record or an abandoned claim of the same request.
      setWhere: or(
        lt(idempotencyKeys.expiresAt, now),
        and(eq(idempotencyKeys.state, "in_flight"), lt(idempotencyKeys.lockedUntil, now), eq(idempotencyKeys.requestHash, hash)),
      ),
    })
    .returning({ key: idempotencyKeys.key });

  const where = and(
    eq(idempotencyKeys.organizationId, identity.organizationId),
    eq(idempotencyKeys.credentialId, identity.credentialId),
    eq(idempotencyKeys.key, key),
  );
  if (claimed.length === 0) {
    const [existing] = await db.select().from(idempotencyKeys).where(where);
    if (!existing) throw new ApiError("idempotency_key_in_use", "A request with this Idempotency-Key is in flight");
    if (existing.requestHash !== hash) {
      throw new ApiError("idempotency_key_reused", "This Idempotency-Key was used for a different request");
    }
    if (existing.state === "in_flight" || existing.responseStatus === null) {
      throw new ApiError("idempotency_key_in_use", "A request with this Idempotency-Key is still in flight; retry later");
    }
    const headers = new Headers({ "content-type": "application/json", "idempotent-replayed": "true" });
    if (existing.requestId) headers.set("original-request-id", existing.requestId);
    // A replay costs what the first answer did, also when that cost varied with the request.
    if (existing.responseCostUnits !== null) headers.set(chargedUnitsHeader, String(existing.responseCostUnits));
    return new Response(replayedBody(existing.responseBody, c.var.requestId), { status: existing.responseStatus, headers });
  }

  try {
    await next();
  } catch (error) {
    await db.delete(idempotencyKeys).where(where);
    throw error;
  }
  const status = c.res.status;
  if (status >= 500 || status === 429) {
    await db.delete(idempotencyKeys).where(where);
    return;
  }
  const responseBody = replayableBody(await c.res.clone().text(), c.var.responseSecrets);
  const reportedUnits = c.res.headers.get(chargedUnitsHeader);
  await db
    .update(idempotencyKeys)
    .set({
      state: "completed",
      responseStatus: status,
      responseBody,
      responseCostUnits: reportedUnits === null ? null : Number(reportedUnits),
      lockedUntil: now,
    })
    .where(where);
};

/** Drops records past their 24 h retention (run by the regional Worker's cron trigger). */
export async function purgeExpiredIdempotencyKeys(db: AppEnv["Variables"]["db"], now = Date.now()) {
  await db.delete(idempotencyKeys).where(lt(idempotencyKeys.expiresAt, now));
}
