import {
  ApiError,
  type ApiKey,
  type ApiKeySettings,
  apiKeyActivityLimit,
  isScope,
  maxApiKeysPerUser,
  operations,
} from "@crm/contracts";
import { control, newId } from "@crm/db";
import { creationOrder, paginate } from "@crm/db/pagination";
import { and, count, desc, eq, gt, inArray, isNull, or, sql } from "drizzle-orm";
import type { DrizzleD1Database } from "drizzle-orm/d1";
import { generateApiKey, hashApiKey } from "../api-keys";
import type { Actor } from "../pipeline/actor";
import { forgetApiKey } from "../pipeline/api-key-credential";
import type { GatewayCall } from "../pipeline/operation-call";
import { runOperationAs } from "../pipeline/run-operation-as";

/**
 * The API keys of a signed-in user in one organization: what the `/api-keys` routes and the
 * console pages both do with them. A user sees and changes only their own live keys; another
 * user's key, a revoked one or one of another organization is `not_found`.
 */
const { apiKeys, apiKeyActivity } = control;
const dayMs = 86_400_000;

export interface KeyOwner {
  organizationId: string;
  userId: string;
}

const publicColumns = {
  id: apiKeys.id,
  name: apiKeys.name,
  prefix: apiKeys.prefix,
  scopes: apiKeys.scopes,
  workspaceIds: apiKeys.workspaceIds,
  expiresAt: apiKeys.expiresAt,
  lastUsedAt: apiKeys.lastUsedAt,
  createdAt: apiKeys.createdAt,
};

type KeyRow = Pick<typeof apiKeys.$inferSelect, keyof typeof publicColumns>;

/** The key as answered: its public columns only, never the secret's hash or the owner's ids. */
const toApiKey = (row: KeyRow): ApiKey => ({
  id: row.id,
  name: row.name,
  prefix: row.prefix,
  scopes: row.scopes.filter(isScope),
  workspaceIds: row.workspaceIds,
  expiresAt: row.expiresAt,
  lastUsedAt: row.lastUsedAt,
  createdAt: row.createdAt,
});

const ownedLive = (owner: KeyOwner) =>
  and(
    eq(apiKeys.organizationId, owner.organizationId),
    eq(apiKeys.ownerType, "user"),
    eq(apiKeys.ownerId, owner.userId),
    isNull(apiKeys.revokedAt),
  );

/** The owner's live keys, newest first (expired ones included, so their expiry shows). */
export async function listKeys(db: DrizzleD1Database, owner: KeyOwner): Promise<ApiKey[]> {
  const rows = await db
    .select(publicColumns)
    .from(apiKeys)
    .where(ownedLive(owner))
    .orderBy(desc(apiKeys.createdAt), desc(apiKeys.id));
  return rows.map(toApiKey);
}

/** A page of the owner's live keys, newest first, as `GET /api-keys` answers them. */
export async function pageOfKeys(
  db: DrizzleD1Database,
  owner: KeyOwner,
  page: { limit: number; cursor?: string | undefined },
  cursorSecret: string,
) {
  const { data, pagination } = await paginate<KeyRow>(
    {
      scope: `api-keys:${owner.organizationId}:${owner.userId}`,
      limit: page.limit,
      cursor: page.cursor,
      order: creationOrder(apiKeys, "desc"),
      fetch: ({ after, orderBy, limit }) =>
        db
          .select(publicColumns)
          .from(apiKeys)
          .where(and(ownedLive(owner), after))
          .orderBy(...orderBy)
          .limit(limit),
    },
    cursorSecret,
  );
  return { data: data.map(toApiKey), pagination };
}

export async function getKey(db: DrizzleD1Database, owner: KeyOwner, id: string): Promise<ApiKey> {
  const [row] = await db
    .select(publicColumns)
    .from(apiKeys)
    .where(and(ownedLive(owner), eq(apiKeys.id, id)))
    .limit(1);
  if (!row) throw new ApiError("not_found", "No such API key");
  return toApiKey(row);
}

/** The latest uses of each key, newest first, at most `perKey` each. */
export async function activityOf(db: DrizzleD1Database, keyIds: string[], perKey = apiKeyActivityLimit) {
  const byKey = new Map<string, { at: number; method: string; route: string; status: number; ip: string | null }[]>();
  for (const id of keyIds) byKey.set(id, []);
  if (keyIds.length === 0) return byKey;
  const rows = await db
    .select()
    .from(apiKeyActivity)
    .where(inArray(apiKeyActivity.apiKeyId, keyIds))
    .orderBy(desc(apiKeyActivity.at), desc(apiKeyActivity.id))
    .limit(perKey * keyIds.length);
  for (const { apiKeyId, at, method, route, status, ip } of rows) {
    const list = byKey.get(apiKeyId);
    if (list && list.length < perKey) list.push({ at, method, route, status, ip });
  }
  return byKey;
}

/**
 * The workspaces the actor reaches in its organization, read where they live: `GET /workspaces`
 * through the pipeline with the session's actor, page by page (no second query path to the region).
 */
export async function reachableWorkspaces(
  call: GatewayCall,
  actor: Actor,
  origin: string,
): Promise<{ id: string; name: string }[]> {
  const found: { id: string; name: string }[] = [];
  let cursor: string | null = null;
  do {
    const url = new URL(`${origin}/api/v1/workspaces`);
    url.searchParams.set("limit", "100");
    if (cursor) url.searchParams.set("cursor", cursor);
    const response = await runOperationAs(
      call,
      operations.listWorkspaces,
      { method: "GET", url, headers: new Headers(), body: null },
      actor,
    );
    if (!response.ok) throw new Error(`GET /workspaces for the console answered ${response.status}`);
    const page = (await response.json()) as { data: { id: string; name: string }[]; pagination: { cursor: string | null } };
    found.push(...page.data.map(({ id, name }) => ({ id, name })));
    cursor = page.pagination.cursor;
  } while (cursor);
  return found;
}

/** A new row and its key; the caller writes the row (alone, or in a batch with a revocation). */
async function newKey(
  owner: KeyOwner,
  settings: { name: string; scopes: string[]; workspaceIds: string[] | null; expiresAt: number | null },
  now: number,
) {
  const { key, prefix } = generateApiKey();
  const row = {
    id: newId("key", now),
    organizationId: owner.organizationId,
    ownerType: "user" as const,
    ownerId: owner.userId,
    name: settings.name,
    prefix,
    secretHash: await hashApiKey(key),
    scopes: settings.scopes,
    workspaceIds: settings.workspaceIds,
    expiresAt: settings.expiresAt,
    revokedAt: null,
    lastUsedAt: null,
    createdAt: now,
  };
  return { key, row };
}

/** The owner's keys that still work at `now`: what the limit of live keys counts. */
const ownedUsable = (owner: KeyOwner, now: number) =>
  and(ownedLive(owner), or(isNull(apiKeys.expiresAt), gt(apiKeys.expiresAt, now)));

const noRoomForKey = () => new ApiError("conflict", `You already hold ${maxApiKeysPerUser} live API keys here; revoke one first`);

async function assertRoomForKey(db: DrizzleD1Database, owner: KeyOwner, now: number): Promise<void> {
  const [live] = await db.select({ n: count() }).from(apiKeys).where(ownedUsable(owner, now));
  if ((live?.n ?? 0) >= maxApiKeysPerUser) throw noRoomForKey();
}

/**
 * Two creations at once both pass the count before either inserts. In insertion order (SQLite's
 * rowid), the keys past the limit give way: the later one is removed before it is handed out.
 */
async function assertWithinLimit(db: DrizzleD1Database, owner: KeyOwner, id: string, now: number): Promise<void> {
  const kept = await db
    .select({ id: apiKeys.id })
    .from(apiKeys)
    .where(ownedUsable(owner, now))
    .orderBy(sql`rowid`)
    .limit(maxApiKeysPerUser);
  if (kept.some((key) => key.id === id)) return;
  await db.delete(apiKeys).where(eq(apiKeys.id, id));
  throw noRoomForKey();
}

/**
 * Creates a key with the given settings. `reachable` is the workspaces the owner can reach; a
 * workspace limit naming another is `not_found`, as any id outside the caller's reach is.
 */
export async function createKey(
  db: DrizzleD1Database,
  owner: KeyOwner,
  settings: ApiKeySettings,
  reachable: { id: string }[],
  now = Date.now(),
): Promise<{ apiKey: ApiKey; key: string }> {
  const workspaceIds = settings.workspaceIds ? [...new Set(settings.workspaceIds)] : null;
  const unknown = workspaceIds?.find((id) => !reachable.some((workspace) => workspace.id === id));
  if (unknown) throw new ApiError("not_found", `No workspace ${unknown} that you can reach`);
  await assertRoomForKey(db, owner, now);
  const expiresAt = settings.expiresInDays ? now + settings.expiresInDays * dayMs : null;
  const { key, row } = await newKey(
    owner,
    { name: settings.name, scopes: [...new Set(settings.scopes)], workspaceIds, expiresAt },
    now,
  );
  await db.insert(apiKeys).values(row);
  await assertWithinLimit(db, owner, row.id, now);
  return { apiKey: toApiKey(row), key };
}

/** Revokes one of the owner's live keys; this isolate forgets it at once, the others within their cache time. */
export async function revokeKey(db: DrizzleD1Database, owner: KeyOwner, id: string, now = Date.now()): Promise<void> {
  const [revoked] = await db
    .update(apiKeys)
    .set({ revokedAt: now })
    .where(and(ownedLive(owner), eq(apiKeys.id, id)))
    .returning({ prefix: apiKeys.prefix });
  if (!revoked) throw new ApiError("not_found", "No such API key");
  forgetApiKey(revoked.prefix);
}

/**
 * A new key with the old one's name, scopes, workspace limit and expiry period (counted from now),
 * and the old key revoked, in one D1 batch: there is never a moment with both or neither live.
 */
export async function replaceKey(db: DrizzleD1Database, owner: KeyOwner, id: string, now = Date.now()) {
  const [old] = await db
    .select(publicColumns)
    .from(apiKeys)
    .where(and(ownedLive(owner), eq(apiKeys.id, id)))
    .limit(1);
  if (!old) throw new ApiError("not_found", "No such API key");
  const expiresAt = old.expiresAt === null ? null : now + (old.expiresAt - old.createdAt);
  const { key, row } = await newKey(
    owner,
    { name: old.name, scopes: old.scopes, workspaceIds: old.workspaceIds, expiresAt },
    now,
  );
  const [, revoked] = await db.batch([
    db.insert(apiKeys).values(row),
    db
      .update(apiKeys)
      .set({ revokedAt: now })
      .where(and(ownedLive(owner), eq(apiKeys.id, id)))
      .returning({ id: apiKeys.id }),
  ]);
  // A concurrent replacement or revocation got there first: the new key, never handed out, goes again.
  if (revoked.length === 0) {
    await db.delete(apiKeys).where(eq(apiKeys.id, row.id));
    throw new ApiError("not_found", "No such API key");
  }
  forgetApiKey(old.prefix);
  return { apiKey: toApiKey(row), key, replacedId: id };
}
