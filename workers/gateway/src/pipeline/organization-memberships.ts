import type { Region } from "@crm/contracts";
import { control } from "@crm/db";
import { eq } from "drizzle-orm";
import type { DrizzleD1Database } from "drizzle-orm/d1";

const { organizations, organizationMembers } = control;

/** An organization a credential can act in, with the user's role there (null for an app). */
export interface OrganizationChoice {
  id: string;
  name: string;
  region: Region;
  /** Its D1 shard in that region. */
  shard: number;
  role: "owner" | "admin" | "member" | null;
}

/**
 * Memberships and organizations are read at most once per isolate in this time, like API keys: an
 * OAuth token or session on every request must not cost a read each. A user removed from an
 * organization therefore loses their tokens' access there within this time.
 */
const cacheMs = 30_000;
const memberships = new Map<string, { choices: Promise<OrganizationChoice[]>; loadedAt: number }>();
const organizationsById = new Map<string, { organization: Promise<OrganizationChoice | null>; loadedAt: number }>();

/** Drops a failed read from a cache, so a busy database does not stick for the cache's lifetime. */
function uncacheOnFailure<T>(cache: Map<string, { loadedAt: number }>, key: string, promise: Promise<T>): Promise<T> {
  promise.catch(() => cache.delete(key));
  return promise;
}

/** The organizations a user belongs to, with their role in each, oldest membership first: read now, uncached. */
export const membershipRows = (db: DrizzleD1Database, userId: string) =>
  db
    .select({
      id: organizations.id,
      name: organizations.name,
      region: organizations.region,
      shard: organizations.shard,
      role: organizationMembers.role,
    })
    .from(organizationMembers)
    .innerJoin(organizations, eq(organizations.id, organizationMembers.organizationId))
    .where(eq(organizationMembers.userId, userId))
    .orderBy(organizationMembers.createdAt, organizations.id);

/** `membershipRows`, read at most once per isolate in `cacheMs`. */
export function userOrganizations(db: DrizzleD1Database, userId: string, now = Date.now()): Promise<OrganizationChoice[]> {
  const cached = memberships.get(userId);
  if (cached && now - cached.loadedAt < cacheMs) return cached.choices;
  // A drizzle query runs again at every await; a settled promise is what the cache can share.
  const choices = membershipRows(db, userId).all();
  memberships.set(userId, { choices, loadedAt: now });
  return uncacheOnFailure(memberships, userId, choices);
}

/** An organization by id (an app token names the one it is installed in); null when it does not exist. */
export function organizationById(
  db: DrizzleD1Database,
  organizationId: string,
  now = Date.now(),
): Promise<OrganizationChoice | null> {
  const cached = organizationsById.get(organizationId);
  if (cached && now - cached.loadedAt < cacheMs) return cached.organization;
  const organization = db
    .select({ id: organizations.id, name: organizations.name, region: organizations.region, shard: organizations.shard })
    .from(organizations)
    .where(eq(organizations.id, organizationId))
    .limit(1)
    .then(([row]) => (row ? { ...row, role: null } : null));
  organizationsById.set(organizationId, { organization, loadedAt: now });
  return uncacheOnFailure(organizationsById, organizationId, organization);
}
