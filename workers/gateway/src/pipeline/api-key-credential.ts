import { isScope, type Region } from "@crm/contracts";
import { control } from "@crm/db";
import { and, eq } from "drizzle-orm";
import type { DrizzleD1Database } from "drizzle-orm/d1";
import { apiKeyPrefix, hashApiKey, sameDigest } from "../api-keys";
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
const keyCache = new Map<string, { record: KeyRecord | null; loadedAt: number }>();

/** Lookups answered from this isolate's cache and from the database: the scale benchmark reports the hit rate. */
export const keyCacheCounts = { hits: 0, misses: 0 };

async function loadKey(db: DrizzleD1Database, prefix: string, now: number): Promise<KeyRecord | null> {
  const cached = keyCache.get(prefix);
  if (cached && now - cached.loadedAt < keyCacheMs) {
    keyCacheCounts.hits += 1;
    return cached.record;
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
  const record = row ?? null;
  keyCache.set(prefix, { record, loadedAt: now });
  return record;
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
  const record = await loadKey(db, prefix, now);
  if (!record || !sameDigest(await hashApiKey(token), record.secretHash)) throw invalidToken("malformed or unknown");
  if (record.revokedAt !== null && record.revokedAt <= now) throw invalidToken("revoked");
  if (record.expiresAt !== null && record.expiresAt <= now) throw invalidToken("expired");
  // A user who left the organization takes no access with their old keys.
  if (record.ownerType === "user" && record.organizationRole === null) throw invalidToken("revoked");
  return {
    organizationId: record.organizationId,
    region: record.region,
    shard: record.shard,
    actor: { type: record.ownerType, id: record.ownerId },
    credential: { type: "api_key", id: record.id },
    scopes: record.scopes.filter(isScope),
    workspaceIds: record.workspaceIds,
    organizationRole: record.ownerType === "user" ? record.organizationRole : null,
  };
}
