import { ApiError } from "@crm/contracts";

/**
 * Standard Webhooks verification of an inbound delivery (DESIGN.md section 9): `webhook-id`,
 * `webhook-timestamp` (Unix seconds, within 5 minutes of now either way) and `webhook-signature`, a
 * space-separated list of `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, one of which must be made
 * with one of the secrets (the HMAC key is the text after `whsec_`, base64-decoded, as the
 * `standardwebhooks` library reads it). Every failure is the same 401, so a caller learns nothing
 * about which part was wrong.
 */

const toleranceSeconds = 5 * 60;
/** A webhook-id is an opaque token of the provider; bounded so that the dedupe key stays small. */
const maxWebhookIdLength = 255;
const encoder = new TextEncoder();

export interface SignedHeaders {
  id: string | undefined;
  timestamp: string | undefined;
  signature: string | undefined;
}

const refused = () => new ApiError("unauthorized", "Missing, stale or invalid webhook signature");

function keyBytes(secret: string): Uint8Array<ArrayBuffer> {
  const binary = atob(secret.replace(/^whsec_/, ""));
  return Uint8Array.from(binary, (char) => char.charCodeAt(0));
}

function fromBase64(text: string): Uint8Array<ArrayBuffer> | null {
  try {
    const binary = atob(text);
    return Uint8Array.from(binary, (char) => char.charCodeAt(0));
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
    .flatMap((entry) => (entry.startsWith("v1,") ? [fromBase64(entry.slice(3))] : []))
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
