import { env } from "cloudflare:test";
import { scopes as allScopes, type Scope, shardBinding } from "@crm/contracts";
import { control, newId, regional } from "@crm/db";
import { and, count, eq, like, type SQL } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import { generateApiKey, hashApiKey } from "../workers/gateway/src/api-keys";

/**
 * Test data written straight into the real D1 databases, for cases the demo seed doesn't have:
 * fresh organizations (isolated from other tests), keys with chosen scopes, limits and states.
 */

const controlDb = () => drizzle(env.CONTROL_DB);

/** A shard's D1 as the test Worker binds it (`US_DB_1`, `US_DB_2`, `EU_DB_1`: the regions' own databases). */
export function shardDatabase(region: "us" | "eu", shard: number): D1Database {
  const database = (env as unknown as Record<string, D1Database | undefined>)[`${region.toUpperCase()}_${shardBinding(shard)}`];
  if (!database) throw new Error(`The test Worker binds no shard ${shard} of ${region}`);
  return database;
}

/** A region's shard through drizzle; the first shard, where organizations made by `createOrganization` live, unless told. */
export const regionDb = (region: "us" | "eu", shard = 1) => drizzle(shardDatabase(region, shard));

/** How many rows of a table a region's shard (the first unless told) holds, matching `where`, e.g. to see what a cascade left behind. */
export const countRows = async (region: "us" | "eu", table: SQLiteTable, where?: SQL, shard = 1) =>
  (await regionDb(region, shard).select({ n: count() }).from(table).where(where))[0]?.n ?? 0;

export interface KeyOptions {
  organizationId: string;
  ownerType?: "user" | "agent";
  ownerId: string;
  scopes?: readonly Scope[] | string[];
  workspaceIds?: string[] | null;
  expiresAt?: number | null;
  revokedAt?: number | null;
}

export async function createKey(options: KeyOptions): Promise<{ key: string; id: string }> {
  const { key, prefix } = generateApiKey();
  const id = newId("key");
  await controlDb()
    .insert(control.apiKeys)
    .values({
      id,
      organizationId: options.organizationId,
      ownerType: options.ownerType ?? "user",
      ownerId: options.ownerId,
      name: "test key",
      prefix,
      secretHash: await hashApiKey(key),
      scopes: [...(options.scopes ?? allScopes)],
      workspaceIds: options.workspaceIds ?? null,
      expiresAt: options.expiresAt ?? null,
      revokedAt: options.revokedAt ?? null,
      createdAt: Date.now(),
    });
  return { key, id };
}

/**
 * A new organization with one owner (and their full-scope key) and `workspaceCount` workspaces, in
 * the first shard of its region unless told (tests read its rows there; placement has its own tests).
 */
export async function createOrganization(options: { region?: "us" | "eu"; shard?: number; workspaceCount?: number } = {}) {
  const region = options.region ?? "us";
  const shard = options.shard ?? 1;
  const organizationId = newId("org");
  const userId = newId("usr");
  const now = Date.now();
  await controlDb().batch([
    controlDb()
      .insert(control.organizations)
      .values({ id: organizationId, name: `Org ${organizationId}`, region, shard, createdAt: now }),
    controlDb()
      .insert(control.users)
      .values({ id: userId, email: `${userId}@test.example`, name: "Owner", createdAt: now }),
    controlDb().insert(control.organizationMembers).values({ organizationId, userId, role: "owner", createdAt: now }),
  ]);
  const workspaceIds: string[] = [];
  for (let i = 0; i < (options.workspaceCount ?? 0); i++)
    workspaceIds.push(await addWorkspace(region, organizationId, `Workspace ${i}`, shard));
  const { key } = await createKey({ organizationId, ownerId: userId });
  return { organizationId, userId, region, shard, key, workspaceIds };
}

/** Inserts a workspace row as another writer would, e.g. while a client is paging. */
export async function addWorkspace(region: "us" | "eu", organizationId: string, name: string, shard = 1): Promise<string> {
  const id = newId("ws");
  const now = Date.now();
  await regionDb(region, shard).insert(regional.workspaces).values({ id, organizationId, name, createdAt: now, updatedAt: now });
  return id;
}

/** A new user of an existing organization with the given role in one workspace, and their full-scope key. */
export async function createMember(options: {
  organizationId: string;
  region: "us" | "eu";
  workspaceId: string;
  role: "owner" | "admin" | "manager" | "member" | "viewer";
}) {
  const userId = newId("usr");
  const now = Date.now();
  await controlDb().batch([
    controlDb()
      .insert(control.users)
      .values({ id: userId, email: `${userId}@test.example`, name: "Member", createdAt: now }),
    controlDb()
      .insert(control.organizationMembers)
      .values({ organizationId: options.organizationId, userId, role: "member", createdAt: now }),
  ]);
  await regionDb(options.region)
    .insert(regional.workspaceMembers)
    .values({ workspaceId: options.workspaceId, userId, role: options.role, inboxAccess: "all", createdAt: now });
  const { key } = await createKey({ organizationId: options.organizationId, ownerId: userId });
  return { userId, key };
}

/** A conversation in a workspace, as the inbox will store one, for tasks that link to it. */
export async function addConversation(region: "us" | "eu", workspaceId: string, subject: string): Promise<string> {
  const id = newId("conv");
  const now = Date.now();
  await regionDb(region).insert(regional.conversations).values({
    id,
    workspaceId,
    channel: "email",
    subject,
    lastMessageAtMs: now,
    isClosed: false,
    createdAt: now,
    updatedAt: now,
  });
  return id;
}

/** How many events of a type about a resource (by its id in the payload) the us outbox holds. */
export const outboxCount = (type: string, resourceId: string) =>
  countRows(
    "us",
    regional.eventOutbox,
    and(eq(regional.eventOutbox.type, type), like(regional.eventOutbox.payload, `%"id":"${resourceId}"%`)),
  );
