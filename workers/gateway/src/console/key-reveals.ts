import { fromBase64Url, toBase64Url } from "@crm/contracts";
import { control } from "@crm/db";
import { and, eq, gt, lt } from "drizzle-orm";
import type { DrizzleD1Database } from "drizzle-orm/d1";
import { randomSecret, secretHash } from "../identity/identity-secret";

/**
 * The one showing of a key the console made (post/redirect/get). The form's POST makes the key and a
 * reveal, and answers 303 to `/console/api-keys?reveal=<reference>`; the GET that follows takes the
 * reveal and shows the key. Invariant: a reveal is read at most once (read and deleted in one
 * statement), by the session that made it, within `revealLifetimeMs`; the row holds the key only
 * sealed under a key derived from the reference, which only the browser has. A reload, another
 * session or a late visit finds nothing and the page says the key can no longer be shown.
 * Stopping between the key's write and the reveal's leaves a key nobody saw: the callers revoke it.
 */
const { consoleKeyReveals } = control;
const revealLifetimeMs = 3 * 60_000;
const encoder = new TextEncoder();

async function sealingKey(reference: string): Promise<CryptoKey> {
  const base = await crypto.subtle.importKey("raw", fromBase64Url(reference), "HKDF", false, ["deriveKey"]);
  return crypto.subtle.deriveKey(
    { name: "HKDF", hash: "SHA-256", salt: new Uint8Array(0), info: encoder.encode("crm console key reveal") },
    base,
    { name: "AES-GCM", length: 256 },
    false,
    ["encrypt", "decrypt"],
  );
}

export interface KeyReveal {
  apiKeyId: string;
  replacedKeyId: string | null;
}

/** Stores a key for its one showing; the reference goes into the redirect's URL and nowhere else. */
export async function storeReveal(
  db: DrizzleD1Database,
  sessionId: string,
  key: string,
  reveal: KeyReveal,
  now = Date.now(),
): Promise<string> {
  const reference = randomSecret(32);
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const sealed = await crypto.subtle.encrypt({ name: "AES-GCM", iv }, await sealingKey(reference), encoder.encode(key));
  await db.batch([
    // Reveals nobody came for: expired, gone with the next one made.
    db.delete(consoleKeyReveals).where(lt(consoleKeyReveals.expiresAt, now)),
    db.insert(consoleKeyReveals).values({
      id: await secretHash(reference),
      sessionId,
      apiKeyId: reveal.apiKeyId,
      replacedKeyId: reveal.replacedKeyId,
      sealedKey: `${toBase64Url(iv)}.${toBase64Url(new Uint8Array(sealed))}`,
      expiresAt: now + revealLifetimeMs,
    }),
  ]);
  return reference;
}

/** The key a reference reveals, once: the row is deleted as it is read. Null when shown before, expired or another session's. */
export async function takeReveal(
  db: DrizzleD1Database,
  sessionId: string,
  reference: string,
  now = Date.now(),
): Promise<(KeyReveal & { key: string }) | null> {
  if (!/^[A-Za-z0-9_-]{43}$/.test(reference)) return null;
  const [row] = await db
    .delete(consoleKeyReveals)
    .where(
      and(
        eq(consoleKeyReveals.id, await secretHash(reference)),
        eq(consoleKeyReveals.sessionId, sessionId),
        gt(consoleKeyReveals.expiresAt, now),
      ),
    )
    .returning();
  if (!row) return null;
  const [iv = "", ciphertext = ""] = row.sealedKey.split(".");
  const key = await crypto.subtle.decrypt(
    { name: "AES-GCM", iv: fromBase64Url(iv) },
    await sealingKey(reference),
    fromBase64Url(ciphertext),
  );
  return { apiKeyId: row.apiKeyId, replacedKeyId: row.replacedKeyId, key: new TextDecoder().decode(key) };
}
