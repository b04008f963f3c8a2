import { fromBase64Url, toBase64Url } from "@crm/contracts";
import { control } from "@crm/db";
import { and, desc, gt, isNull, lt, or } from "drizzle-orm";
import type { DrizzleD1Database } from "drizzle-orm/d1";
import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type JSONWebKeySet, type JWK } from "jose";
import { signingKeyWrapKey } from "./identity-secret";

const { oauthSigningKeys } = control;

/** Access tokens live at most an hour (DESIGN.md section 3). */
export const accessTokenLifetimeSeconds = 3600;
/** How long a verifier may cache the JWKS (its `Cache-Control: max-age`). */
export const jwksCacheMs = 60_000;
/** Signing keys are replaced this often: a successor is published, and signs once it has been published `jwksCacheMs`. */
const keyRotationMs = 30 * 24 * 60 * 60 * 1000;
/** An isolate signs with the key it loaded for at most this long before it looks for a newer one. */
const activeKeyCacheMs = 60_000;
/**
 * A retired key stays in the JWKS until every token it can have signed has expired: an isolate may
 * still sign with it for `activeKeyCacheMs` after the rotation, and that token lives an hour more.
 */
export const retiredKeyPublishedMs = accessTokenLifetimeSeconds * 1000 + activeKeyCacheMs;

export const signingAlgorithm = "ES256";

export interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
}

let active: { key: Promise<SigningKey>; loadedAt: number } | undefined;
const encoder = new TextEncoder();

/** The private JWK encrypted with AES-GCM under `IDENTITY_SECRET`'s wrapping key, bound to its kid. */
async function wrapPrivateKey(secret: string, kid: string, jwk: JWK): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const ciphertext = await crypto.subtle.encrypt(
    { name: "AES-GCM", iv, additionalData: encoder.encode(kid) },
    await signingKeyWrapKey(secret),
    encoder.encode(JSON.stringify(jwk)),
  );
  return `${toBase64Url(iv)}.${toBase64Url(new Uint8Array(ciphertext))}`;
}

async function unwrapPrivateKey(secret: string, kid: string, wrapped: string): Promise<CryptoKey> {
  const [iv = "", ciphertext = ""] = wrapped.split(".");
  const plaintext = await crypto.subtle.decrypt(
    { name: "AES-GCM", iv: fromBase64Url(iv), additionalData: encoder.encode(kid) },
    await signingKeyWrapKey(secret),
    fromBase64Url(ciphertext),
  );
  const key = await importJWK(JSON.parse(new TextDecoder().decode(plaintext)) as JWK, signingAlgorithm);
  if (!(key instanceof CryptoKey)) throw new Error(`signing key ${kid} is not an ES256 private key`);
  return key;
}

/** A fresh ES256 key pair as a row to store; its kid is the RFC 7638 thumbprint of the public key. */
async function newSigningKeyRow(secret: string, now: number) {
  const { publicKey, privateKey } = await generateKeyPair(signingAlgorithm, { extractable: true });
  const publicJwk = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(publicJwk);
  const row = {
    kid,
    publicJwk: { ...publicJwk, kid, alg: signingAlgorithm, use: "sig" } as JsonWebKey,
    privateKeyWrapped: await wrapPrivateKey(secret, kid, await exportJWK(privateKey)),
    createdAt: now,
    retiredAt: null,
  };
  return { row, key: { kid, privateKey } satisfies SigningKey };
}

/**
 * Invariant: a key signs only once it is in the JWKS, and a successor only once it has been there
 * for `jwksCacheMs`, so no verifier holding a JWKS fetched before can meet an unknown kid. The
 * signing key is the newest active (unretired) key published at least that long, else the oldest
 * active one (the first key of all, which the JWKS publishes before anything is signed, or a
 * successor still waiting). Once a successor signs, the keys before it are retired. With no active
 * key that decrypts (`IDENTITY_SECRET` was changed) a new key is made, retiring the others, and
 * signs at once: nothing else could sign. Isolates racing here each make one; every one of them is
 * published, so that is harmless. A failure anywhere leaves the rows as they were or a key more.
 */
async function loadActiveKey(db: DrizzleD1Database, secret: string, now: number): Promise<SigningKey> {
  const rows = await db
    .select()
    .from(oauthSigningKeys)
    .where(isNull(oauthSigningKeys.retiredAt))
    .orderBy(desc(oauthSigningKeys.createdAt), desc(oauthSigningKeys.kid));
  const usable: { row: (typeof rows)[number]; key: SigningKey }[] = [];
  for (const row of rows) {
    const privateKey = await unwrapPrivateKey(secret, row.kid, row.privateKeyWrapped).catch(() => null);
    if (privateKey) usable.push({ row, key: { kid: row.kid, privateKey } });
  }
  const newest = usable[0];
  if (!newest) return replaceActiveKeys(db, secret, now);
  const signing = usable.find(({ row }) => now - row.createdAt >= jwksCacheMs) ?? (usable.at(-1) as typeof newest);
  if (usable.some(({ row }) => row.createdAt < signing.row.createdAt))
    await db
      .update(oauthSigningKeys)
      .set({ retiredAt: now })
      .where(and(isNull(oauthSigningKeys.retiredAt), lt(oauthSigningKeys.createdAt, signing.row.createdAt)));
  // Due for rotation and no successor yet: publish one now; it takes over a cache lifetime later.
  if (newest === signing && now - signing.row.createdAt >= keyRotationMs) await publishSuccessor(db, secret, now);
  return signing.key;
}

async function replaceActiveKeys(db: DrizzleD1Database, secret: string, now: number): Promise<SigningKey> {
  const created = await newSigningKeyRow(secret, now);
  await db.batch([
    db.update(oauthSigningKeys).set({ retiredAt: now }).where(isNull(oauthSigningKeys.retiredAt)),
    db.insert(oauthSigningKeys).values(created.row),
  ]);
  return created.key;
}

async function publishSuccessor(db: DrizzleD1Database, secret: string, now: number): Promise<string> {
  const created = await newSigningKeyRow(secret, now);
  await db.insert(oauthSigningKeys).values(created.row);
  return created.key.kid;
}

/** The key new access tokens are signed with; cached per isolate for a minute. */
export function activeSigningKey(db: DrizzleD1Database, secret: string, now = Date.now()): Promise<SigningKey> {
  if (!active || now - active.loadedAt >= activeKeyCacheMs) {
    const key = loadActiveKey(db, secret, now);
    active = { key, loadedAt: now };
    // A failed load (database busy) must not stick for a minute.
    key.catch(() => {
      if (active?.key === key) active = undefined;
    });
  }
  return active.key;
}

/**
 * Publishes a successor key now (besides the automatic rotation every 30 days). It signs once it
 * has been published `jwksCacheMs`; the key before it is then retired, and stays published until
 * the tokens it signed have expired (`retiredKeyPublishedMs`).
 */
export async function rotateSigningKey(db: DrizzleD1Database, secret: string, now = Date.now()): Promise<string> {
  const kid = await publishSuccessor(db, secret, now);
  active = undefined;
  return kid;
}

/** The public keys: the active ones and every retired key whose tokens may still be live. */
export async function publishedSigningKeys(db: DrizzleD1Database, now = Date.now()): Promise<JSONWebKeySet> {
  const rows = await db
    .select({ publicJwk: oauthSigningKeys.publicJwk })
    .from(oauthSigningKeys)
    .where(or(isNull(oauthSigningKeys.retiredAt), gt(oauthSigningKeys.retiredAt, now - retiredKeyPublishedMs)))
    .orderBy(desc(oauthSigningKeys.createdAt));
  return { keys: rows.map((row) => row.publicJwk as JWK) };
}

/**
 * The JWKS document (`/.well-known/jwks.json`), never empty: on a fresh deployment the first key is
 * made here, so a verifier that reads the JWKS before the first token is signed still knows its kid.
 */
export async function jwksDocument(db: DrizzleD1Database, secret: string, now = Date.now()): Promise<JSONWebKeySet> {
  const jwks = await publishedSigningKeys(db, now);
  if (jwks.keys.length > 0) return jwks;
  await activeSigningKey(db, secret, now);
  return publishedSigningKeys(db, now);
}
