import { toBase64Url } from "@crm/contracts";

/**
 * One Worker secret, `IDENTITY_SECRET`, protects everything identity signs or encrypts. Each use gets
 * its own key derived with HKDF-SHA-256 under its own label, so a value made for one purpose (a CSRF
 * token, a consent reference) is never valid for another, and the signing keys' wrapping key is
 * never used to sign anything.
 */
type IdentityKeyPurpose = "csrf" | "consent-request" | "list-cursor" | "signing-key-wrap";

const encoder = new TextEncoder();
const derived = new Map<string, Promise<CryptoKey>>();

async function hkdfBase(secret: string): Promise<CryptoKey> {
  return crypto.subtle.importKey("raw", encoder.encode(secret), "HKDF", false, ["deriveKey"]);
}

type DerivedAlgorithm = Parameters<SubtleCrypto["deriveKey"]>[2];

function derive(secret: string, purpose: IdentityKeyPurpose, algorithm: DerivedAlgorithm, usages: string[]) {
  const cacheKey = `${purpose}\u0000${secret}`;
  let key = derived.get(cacheKey);
  if (!key) {
    key = hkdfBase(secret).then((base) =>
      crypto.subtle.deriveKey(
        { name: "HKDF", hash: "SHA-256", salt: new Uint8Array(0), info: encoder.encode(`crm identity ${purpose}`) },
        base,
        algorithm,
        false,
        usages,
      ),
    );
    derived.set(cacheKey, key);
  }
  return key;
}

/** HMAC-SHA-256 key of one purpose. */
const identityHmacKey = (secret: string, purpose: "csrf" | "consent-request" | "list-cursor") =>
  derive(secret, purpose, { name: "HMAC", hash: "SHA-256", length: 256 }, ["sign", "verify"]);

/** AES-256-GCM key that encrypts the signing keys' private halves at rest. */
export const signingKeyWrapKey = (secret: string) =>
  derive(secret, "signing-key-wrap", { name: "AES-GCM", length: 256 }, ["encrypt", "decrypt"]);

/** Base64url HMAC of `message` under the purpose's key. */
export async function identityMac(
  secret: string,
  purpose: "csrf" | "consent-request" | "list-cursor",
  message: string,
): Promise<string> {
  const signature = await crypto.subtle.sign("HMAC", await identityHmacKey(secret, purpose), encoder.encode(message));
  return toBase64Url(new Uint8Array(signature));
}

/** The secret the gateway's list cursors are signed with (the regions sign theirs with their own `CURSOR_SECRET`). */
export const listCursorSecret = (secret: string) => identityMac(secret, "list-cursor", "gateway list cursors");

/** Constant-time comparison of two strings (lengths may differ: then they are simply unequal). */
export function sameSecret(a: string, b: string): boolean {
  const left = encoder.encode(a);
  const right = encoder.encode(b);
  return left.length === right.length && crypto.subtle.timingSafeEqual(left, right);
}

/** A fresh random secret of `bytes` bytes, base64url (codes, refresh tokens, session tokens, client secrets). */
export const randomSecret = (bytes = 32): string => toBase64Url(crypto.getRandomValues(new Uint8Array(bytes)));

/** SHA-256 of a secret, hex: the only form in which tokens and client secrets are stored. */
export async function secretHash(secret: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", encoder.encode(secret));
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}
