import { fromBase64Url, toBase64Url } from "@crm/contracts";
import { control } from "@crm/db";
import { desc, gt, isNull, or } from "drizzle-orm";
import type { DrizzleD1Database } from "drizzle-orm/d1";
import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type JSONWebKeySet, type JWK } from "jose";
import { signingKeyWrapKey } from "./identity-secret";

const { oauthSigningKeys } = control;

/** Access tokens live at most an hour (DESIGN.md section 3). */
export const accessTokenLifetimeSeconds = 3600;
/** Signing keys are replaced this often, on the first token signed after the age is reached. */
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
 * The newest active key. With none (the first token ever), one older than `keyRotationMs`, or one
 * that no longer decrypts (`IDENTITY_SECRET` was changed), a new key is made and the others retired.
 * Isolates racing here each make one; every one of them is published, so that is harmless.
 */
async function loadActiveKey(db: DrizzleD1Database, secret: string, now: number): Promise<SigningKey> {
  const [row] = await db
    .select()
    .from(oauthSigningKeys)
    .where(isNull(oauthSigningKeys.retiredAt))
    .orderBy(desc(oauthSigningKeys.createdAt), desc(oauthSigningKeys.kid))
    .limit(1);
  if (row && now - row.createdAt < keyRotationMs) {
    const privateKey = await unwrapPrivateKey(secret, row.kid, row.privateKeyWrapped).catch(() => null);
    if (privateKey) return { kid: row.kid, privateKey };
  }
  return replaceActiveKeys(db, secret, now);
}

async function replaceActiveKeys(db: DrizzleD1Database, secret: string, now: number): Promise<SigningKey> {
  const created = await newSigningKeyRow(secret, now);
  await db.batch([
    db.update(oauthSigningKeys).set({ retiredAt: now }).where(isNull(oauthSigningKeys.retiredAt)),
    db.insert(oauthSigningKeys).values(created.row),
  ]);
  return created.key;
}

/** The key new access tokens are signed with, made on first use; cached per isolate for a minute. */
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
 * Retires every active key and makes a new one, in one batch (besides the automatic rotation every
 * 30 days). Tokens signed by an old key stay verifiable: its kid is published until they have
 * expired (`retiredKeyPublishedMs`).
 */
export async function rotateSigningKey(db: DrizzleD1Database, secret: string, now = Date.now()): Promise<string> {
  const key = await replaceActiveKeys(db, secret, now);
  active = { key: Promise.resolve(key), loadedAt: now };
  return key.kid;
}

/** The public JWKS (`/.well-known/jwks.json`): the active keys and every retired key whose tokens may still be live. */
export async function publishedSigningKeys(db: DrizzleD1Database, now = Date.now()): Promise<JSONWebKeySet> {
  const rows = await db
    .select({ publicJwk: oauthSigningKeys.publicJwk })
    .from(oauthSigningKeys)
    .where(or(isNull(oauthSigningKeys.retiredAt), gt(oauthSigningKeys.retiredAt, now - retiredKeyPublishedMs)))
    .orderBy(desc(oauthSigningKeys.createdAt));
  return { keys: rows.map((row) => row.publicJwk as JWK) };
}
