import { isScope, type Region } from "@crm/contracts";
import { control } from "@crm/db";
import { and, eq } from "drizzle-orm";
import type { DrizzleD1Database } from "drizzle-orm/d1";
import { apiKeyPrefix, hashApiKey, sameSecret } from "../api-keys";
import type { Actor } from "./actor";
import { invalidToken } from "./credential-errors";

const { apiKeys, organizations, organizationMembers } = control;

interface KeyRecord {
  id: string;
  organizationId: string;
  region: Region;
  shard: number;
  ownerType: "user" | "agent";
  ownerId: string;
  secretHash: string;
  scopes: string[];
  workspaceIds: string[] | null;
  expiresAt: number | null;
  revokedAt: number | null;
  organizationRole: "owner" | "admin" | "member" | null;
}

/**
 * Verified key rows are kept per isolate for a short while: authentication is on every request's
 * path. Revocation therefore takes effect everywhere within this time (DESIGN.md: within 60 s).
 */
const keyCacheMs = 30_000;

interface CachedKey {
  record: KeyRecord | null;
  loadedAt: number;
  /**
   * The key last verified against this record and the actor it speaks for: a key is sent thousands
   * of times in its 30 s here, and hashing it and building its actor on each request cost every
   * request of the pipeline (issue 30's profile). Another token with this prefix is hashed as before.
   */
  verified?: { token: string; actor: Actor };
}

const keyCache = new Map<string, CachedKey>();

/** Lookups answered from this isolate's cache and from the database: the scale benchmark reports the hit rate. */
export const keyCacheCounts = { hits: 0, misses: 0 };

async function loadKey(db: DrizzleD1Database, prefix: string, now: number): Promise<CachedKey> {
  const cached = keyCache.get(prefix);
  if (cached && now - cached.loadedAt < keyCacheMs) {
    keyCacheCounts.hits += 1;
    return cached;
  }
  keyCacheCounts.misses += 1;
  const [row] = await db
    .select({
      id: apiKeys.id,
      organizationId: apiKeys.organizationId,
      region: organizations.region,
      shard: organizations.shard,
      ownerType: apiKeys.ownerType,
      ownerId: apiKeys.ownerId,
      secretHash: apiKeys.secretHash,
      scopes: apiKeys.scopes,
      workspaceIds: apiKeys.workspaceIds,
      expiresAt: apiKeys.expiresAt,
      revokedAt: apiKeys.revokedAt,
      organizationRole: organizationMembers.role,
    })
    .from(apiKeys)
    .innerJoin(organizations, eq(organizations.id, apiKeys.organizationId))
    .leftJoin(
      organizationMembers,
      and(eq(organizationMembers.organizationId, apiKeys.organizationId), eq(organizationMembers.userId, apiKeys.ownerId)),
    )
    .where(eq(apiKeys.prefix, prefix))
    .limit(1);
  const loaded = { record: row ?? null, loadedAt: now };
  keyCache.set(prefix, loaded);
  return loaded;
}

/** Drops a key from this isolate's cache (at its revocation): the isolate refuses it from its next request on. */
export function forgetApiKey(prefix: string): void {
  keyCache.delete(prefix);
}

/** Whether the token has the shape of an API key (`crm_<prefix>_<secret>`). */
export const isApiKey = (token: string): boolean => apiKeyPrefix(token) !== null;

/** Whether authenticating this API key reads the database: it was not looked up in this isolate lately. */
export function needsLookup(token: string, now = Date.now()): boolean {
  const prefix = apiKeyPrefix(token);
  const cached = prefix ? keyCache.get(prefix) : undefined;
  return prefix !== null && !(cached && now - cached.loadedAt < keyCacheMs);
}

/** Authenticates an API key and returns the actor it speaks for. */
export async function authenticateApiKey(db: DrizzleD1Database, token: string, now = Date.now()): Promise<Actor> {
  const prefix = apiKeyPrefix(token);
  if (!prefix) throw invalidToken("malformed or unknown");
  const cached = await loadKey(db, prefix, now);
  const { record } = cached;
  if (!record) throw invalidToken("malformed or unknown");
  // The same key as last verified (compared in constant time, as the digests are) needs no hash.
  const known = cached.verified !== undefined && sameSecret(token, cached.verified.token);
  if (!known && !sameSecret(await hashApiKey(token), record.secretHash)) throw invalidToken("malformed or unknown");
  // Checked on every request, the cached key's too: a key expires or is revoked at its time, not at its reload.
  if (record.revokedAt !== null && record.revokedAt <= now) throw invalidToken("revoked");
  if (record.expiresAt !== null && record.expiresAt <= now) throw invalidToken("expired");
  // A user who left the organization takes no access with their old keys.
  if (record.ownerType === "user" && record.organizationRole === null) throw invalidToken("revoked");
  if (known) return (cached.verified as { actor: Actor }).actor;
  const actor: Actor = {
    organizationId: record.organizationId,
    region: record.region,
    shard: record.shard,
    actor: { type: record.ownerType, id: record.ownerId },
    credential: { type: "api_key", id: record.id },
    scopes: record.scopes.filter(isScope),
    workspaceIds: record.workspaceIds,
    organizationRole: record.ownerType === "user" ? record.organizationRole : null,
  };
  cached.verified = { token, actor: Object.freeze(actor) };
  return actor;
}
