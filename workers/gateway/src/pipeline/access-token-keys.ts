import type { DrizzleD1Database } from "drizzle-orm/d1";
import { createLocalJWKSet, decodeProtectedHeader, type JWTVerifyGetKey } from "jose";
import { publishedSigningKeys } from "../identity/signing-keys";

/**
 * The public keys access tokens are verified with, as the JWKS publishes them: read once per
 * isolate, and again only when a token names a `kid` this isolate does not know (a key rotated in
 * since), at most once in `reloadAfterMs`, so tokens with made-up kids cannot turn into a read each.
 */
const reloadAfterMs = 5_000;

let keySet: Promise<JWTVerifyGetKey> | undefined;
let loadedAt = Number.NEGATIVE_INFINITY;
let knownKids: ReadonlySet<string> = new Set();

async function loadKeySet(db: DrizzleD1Database, now: number): Promise<JWTVerifyGetKey> {
  const jwks = await publishedSigningKeys(db, now);
  knownKids = new Set(jwks.keys.flatMap((key) => (key.kid ? [key.kid] : [])));
  return createLocalJWKSet(jwks);
}

/** The `kid` of a compact JWS, or null when its header does not decode or names none. */
export function kidOf(token: string): string | null {
  try {
    const { kid } = decodeProtectedHeader(token);
    return typeof kid === "string" ? kid : null;
  } catch {
    return null;
  }
}

/** Whether verifying a token that names `kid` reads the database now. */
export const needsKeyLoad = (kid: string, now = Date.now()): boolean =>
  keySet === undefined || (!knownKids.has(kid) && now - loadedAt >= reloadAfterMs);

/** The key resolver for a token naming `kid`, the set reloaded first if the kid is new and a reload is due. */
export function verificationKeys(db: DrizzleD1Database, kid: string, now = Date.now()): Promise<JWTVerifyGetKey> {
  if (keySet && !needsKeyLoad(kid, now)) return keySet;
  const loading = loadKeySet(db, now);
  keySet = loading;
  loadedAt = now;
  // A failed read (database busy) must not stand in for the keys until the next reload.
  loading.catch(() => {
    if (keySet === loading) keySet = undefined;
  });
  return loading;
}
