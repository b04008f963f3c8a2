/**
 * API key format (DESIGN.md section 3): `crm_<12-char public prefix>_<secret>`, the secret being
 * 32 random bytes in base62. Only the SHA-256 of the whole key is stored; the prefix finds the row.
 */
const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const keyPattern = /^crm_([0-9A-Za-z]{12})_([0-9A-Za-z]{43})$/;

function toBase62(bytes: Uint8Array, length: number): string {
  let value = 0n;
  for (const byte of bytes) value = (value << 8n) | BigInt(byte);
  let text = "";
  for (let i = 0; i < length; i++) {
    text = base62[Number(value % 62n)] + text;
    value /= 62n;
  }
  return text;
}

/** Builds a key from 41 bytes of randomness: 9 for the prefix, 32 for the secret. */
export function apiKeyFromBytes(bytes: Uint8Array): { key: string; prefix: string } {
  const prefix = toBase62(bytes.slice(0, 9), 12);
  const secret = toBase62(bytes.slice(9, 41), 43);
  return { key: `crm_${prefix}_${secret}`, prefix };
}

export const generateApiKey = () => apiKeyFromBytes(crypto.getRandomValues(new Uint8Array(41)));

/** The public prefix of a well-formed key, or null for anything that is not one. */
export function apiKeyPrefix(token: string): string | null {
  return keyPattern.exec(token)?.[1] ?? null;
}

export async function hashApiKey(key: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(key));
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** Constant-time comparison of two secrets (hex digests, keys): false when their lengths differ. */
export function sameSecret(a: string, b: string): boolean {
  const encoder = new TextEncoder();
  const left = encoder.encode(a);
  const right = encoder.encode(b);
  return left.length === right.length && crypto.subtle.timingSafeEqual(left, right);
}
