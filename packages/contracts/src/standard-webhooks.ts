import { z } from "@hono/zod-openapi";
import { fromBase64, toBase64 } from "./base64";
import { ApiError } from "./errors";

/**
 * Standard Webhooks signing (DESIGN.md section 10) and verification (section 9), shared by the
 * regional Worker (outbound deliveries, inbound provider events) and the gateway (the demo seed
 * posts signed provider events through its own pipeline): `webhook-signature: v1,<base64 HMAC-SHA256 of
 * "id.timestamp.body">`, the key being the text after `whsec_` base64-decoded, exactly as the
 * reference `standardwebhooks` library reads it. Several secrets (during a rotation) give several
 * space-separated signatures, any of which verifies.
 */

const encoder = new TextEncoder();

export function newWebhookSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return `whsec_${[...bytes].map((byte) => byte.toString(16).padStart(2, "0")).join("")}`;
}

const keyBytes = (secret: string): Uint8Array<ArrayBuffer> => fromBase64(secret.replace(/^whsec_/, ""));

/**
 * Imported signing keys by secret, so that a busy subscription's deliveries do not import the same key
 * each time. Bounded: the oldest goes when a region's isolate has seen more subscriptions than this.
 */
const signingKeys = new Map<string, Promise<CryptoKey>>();
const maxSigningKeys = 1_000;

function signingKey(secret: string): Promise<CryptoKey> {
  let key = signingKeys.get(secret);
  if (!key) {
    key = crypto.subtle.importKey("raw", keyBytes(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    if (signingKeys.size >= maxSigningKeys) signingKeys.delete(signingKeys.keys().next().value as string);
    signingKeys.set(secret, key);
    // A secret that cannot be imported is not kept: the next delivery tries (and reports) again.
    key.catch(() => signingKeys.delete(secret));
  }
  return key;
}

async function sign(secret: string, content: string): Promise<string> {
  const key = await signingKey(secret);
  const signature = new Uint8Array(await crypto.subtle.sign("HMAC", key, encoder.encode(content)));
  return `v1,${toBase64(signature)}`;
}

export async function webhookHeaders(
  secrets: string[],
  id: string,
  timestampSeconds: number,
  body: string,
): Promise<Record<string, string>> {
  const content = `${id}.${timestampSeconds}.${body}`;
  const signatures = await Promise.all(secrets.map((secret) => sign(secret, content)));
  return {
    "content-type": "application/json",
    "webhook-id": id,
    "webhook-timestamp": String(timestampSeconds),
    "webhook-signature": signatures.join(" "),
  };
}

/*
 * Verification of an inbound delivery: `webhook-id`, `webhook-timestamp` (Unix seconds, within 5
 * minutes of now either way) and `webhook-signature`, one of whose `v1,` entries must be made with one
 * of the secrets. Every failure is the same 401, so a caller learns nothing about which part was wrong.
 */
const toleranceSeconds = 5 * 60;
/** A webhook-id is an opaque token of the provider; bounded so that the dedupe key stays small. */
const maxWebhookIdLength = 255;

export interface SignedHeaders {
  id: string | undefined;
  timestamp: string | undefined;
  signature: string | undefined;
}

const refused = () => new ApiError("unauthorized", "Missing, stale or invalid webhook signature");

function signatureBytes(text: string): Uint8Array<ArrayBuffer> | null {
  try {
    return fromBase64(text);
  } catch {
    return null;
  }
}

/** The delivery's `webhook-id` once the signature verifies with one of `secrets`; 401 otherwise. */
export async function verifySignature(
  headers: SignedHeaders,
  body: ArrayBuffer,
  secrets: string[],
  nowMs = Date.now(),
): Promise<string> {
  const { id, timestamp, signature } = headers;
  if (!id || id.length > maxWebhookIdLength || !timestamp || !signature) throw refused();
  if (!/^[0-9]{1,12}$/.test(timestamp) || Math.abs(nowMs / 1000 - Number(timestamp)) > toleranceSeconds) throw refused();
  const signed = new Uint8Array([...encoder.encode(`${id}.${timestamp}.`), ...new Uint8Array(body)]);
  const candidates = signature
    .split(" ")
    .flatMap((entry) => (entry.startsWith("v1,") ? [signatureBytes(entry.slice(3))] : []))
    .filter((bytes): bytes is Uint8Array<ArrayBuffer> => bytes !== null);
  for (const secret of secrets) {
    const key = await crypto.subtle.importKey("raw", keyBytes(secret), { name: "HMAC", hash: "SHA-256" }, false, ["verify"]);
    for (const candidate of candidates) {
      // crypto.subtle.verify compares in constant time.
      if (await crypto.subtle.verify("HMAC", key, candidate, signed)) return id;
    }
  }
  throw refused();
}

/**
 * A response that shows a Standard Webhooks signing secret (a webhook's, a provider connection's)
 * on creation and rotation: the secret in this response only. An idempotent replay of it answers
 * `secret: null` and a `notice` naming the route that issues a new one (DESIGN.md section 5).
 */
export function withSigningSecretShownOnce<K extends string, T extends z.ZodType>(key: K, resource: T, rotateRoute: string) {
  return z.object({ [key]: resource } as Record<K, T>).extend({
    secret: z
      .string()
      .regex(/^whsec_[0-9a-f]{64}$/)
      .max(70)
      .nullable()
      .openapi({
        description:
          "`whsec_` + 64 hex characters (the HMAC key is the part after `whsec_`, base64-decoded, as Standard Webhooks libraries read it). Shown in this response only; a replay (same `Idempotency-Key`, `Idempotent-Replayed: true`) answers null and says so in `notice`.",
        example: `whsec_${"0f".repeat(32)}`,
      }),
    notice: z
      .string()
      .max(500)
      .optional()
      .openapi({ description: `On a replay only: the secret is shown once, and \`${rotateRoute}\` issues a new one.` }),
  });
}
