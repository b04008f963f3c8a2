import { ApiError } from "@crm/contracts";

/** How far a push's timestamp may be from this Worker's clock, either way (DESIGN.md section 12). */
export const ssoToleranceSeconds = 5 * 60;

export const ssoHeaders = { timestamp: "x-sso-timestamp", nonce: "x-sso-nonce", signature: "x-sso-signature" } as const;

/** Unix seconds as plain digits; a nonce of 16 to 128 URL-safe characters (a UUID, hex or base64url); 64 lowercase hex. */
const timestampFormat = /^[0-9]{1,12}$/;
const nonceFormat = /^[A-Za-z0-9_-]{16,128}$/;
const signatureFormat = /^[0-9a-f]{64}$/;

export interface SignedPush {
  timestamp: number;
  nonce: string;
}

const refused = (message: string) => new ApiError("unauthorized", message);

const keys = new Map<string, Promise<CryptoKey>>();

/** The HMAC key of the secret, imported once per isolate. */
function hmacKey(secret: string): Promise<CryptoKey> {
  let key = keys.get(secret);
  if (!key) {
    key = crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["verify"]);
    keys.set(secret, key);
  }
  return key;
}

const hexBytes = (hex: string) => Uint8Array.from(hex.match(/../g) ?? [], (pair) => Number.parseInt(pair, 16));

/**
 * Checks a push of the identity service: `x-sso-signature` is the lowercase hex HMAC-SHA-256, under
 * `SSO_STORE_SECRET`, of `<x-sso-timestamp>.<x-sso-nonce>.<body bytes>`, and the timestamp is within
 * the tolerance of now. Anything else is 401. The nonce's single use is the caller's to claim, in the
 * same write as what the push stores.
 */
export async function verifySsoPush(secret: string, headers: Headers, body: ArrayBuffer, nowMs: number): Promise<SignedPush> {
  const timestamp = headers.get(ssoHeaders.timestamp) ?? "";
  const nonce = headers.get(ssoHeaders.nonce) ?? "";
  const signature = headers.get(ssoHeaders.signature) ?? "";
  if (!timestampFormat.test(timestamp) || !nonceFormat.test(nonce) || !signatureFormat.test(signature)) {
    throw refused(
      `Sign the request: ${ssoHeaders.timestamp} (Unix seconds), ${ssoHeaders.nonce} (16 to 128 of A-Z a-z 0-9 _ -) and ${ssoHeaders.signature} (lowercase hex HMAC-SHA-256)`,
    );
  }
  const prefix = new TextEncoder().encode(`${timestamp}.${nonce}.`);
  const signed = new Uint8Array(prefix.length + body.byteLength);
  signed.set(prefix);
  signed.set(new Uint8Array(body), prefix.length);
  // crypto.subtle.verify compares in constant time.
  if (!(await crypto.subtle.verify("HMAC", await hmacKey(secret), hexBytes(signature), signed))) {
    throw refused("The signature does not match the request");
  }
  const seconds = Number(timestamp);
  if (Math.abs(nowMs / 1000 - seconds) > ssoToleranceSeconds) {
    throw refused(`The timestamp is more than ${ssoToleranceSeconds / 60} minutes from the server's clock`);
  }
  return { timestamp: seconds, nonce };
}
