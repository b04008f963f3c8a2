import { fromBase64Url, toBase64Url } from "@crm/contracts";

/**
 * Console passwords (DESIGN.md section 3): PBKDF2-SHA-256 through WebCrypto with 100 000 iterations
 * (the most the Workers runtime allows) and a 16-byte salt per user, stored as
 * `pbkdf2-sha256$100000$<salt>$<hash>` (base64url), so the parameters can change for new hashes
 * while old ones still verify.
 */
const scheme = "pbkdf2-sha256";
export const passwordIterations = 100_000;
const saltBytes = 16;
const hashBits = 256;
const encoder = new TextEncoder();

async function derive(password: string, salt: Uint8Array<ArrayBuffer>, iterations: number): Promise<Uint8Array> {
  const material = await crypto.subtle.importKey("raw", encoder.encode(password), "PBKDF2", false, ["deriveBits"]);
  const bits = await crypto.subtle.deriveBits({ name: "PBKDF2", hash: "SHA-256", salt, iterations }, material, hashBits);
  return new Uint8Array(bits);
}

export async function hashPassword(password: string): Promise<string> {
  const salt = crypto.getRandomValues(new Uint8Array(saltBytes));
  const hash = await derive(password, salt, passwordIterations);
  return `${scheme}$${passwordIterations}$${toBase64Url(salt)}$${toBase64Url(hash)}`;
}

/** Stands in for the stored hash of an e-mail nobody has, so an unknown e-mail costs what a wrong password costs. */
const standIn = { iterations: passwordIterations, salt: new Uint8Array(saltBytes), hash: new Uint8Array(hashBits / 8) };

function parse(encoded: string): { iterations: number; salt: Uint8Array<ArrayBuffer>; hash: Uint8Array } | null {
  const [name, iterations, salt, hash, extra] = encoded.split("$");
  if (name !== scheme || !iterations || !salt || !hash || extra !== undefined || !/^\d+$/.test(iterations)) return null;
  const count = Number(iterations);
  if (count < 1 || count > passwordIterations) return null;
  try {
    return { iterations: count, salt: fromBase64Url(salt), hash: fromBase64Url(hash) };
  } catch {
    return null;
  }
}

/**
 * Whether `password` matches `stored`. A missing or unreadable hash (unknown e-mail, a user without a password)
 * runs the same derivation against a stand-in and answers false, so the answer's timing does not
 * tell which e-mails exist.
 */
export async function passwordMatches(password: string, stored: string | null): Promise<boolean> {
  const parsed = stored === null ? null : parse(stored);
  const reference = parsed ?? standIn;
  const candidate = await derive(password, reference.salt, reference.iterations);
  const equal = candidate.length === reference.hash.length && crypto.subtle.timingSafeEqual(candidate, reference.hash);
  return parsed !== null && equal;
}
