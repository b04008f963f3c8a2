import { control } from "@crm/db";
import { and, count, eq, inArray } from "drizzle-orm";
import type { DrizzleD1Database } from "drizzle-orm/d1";
import type { KeyOwner } from "../routes/api-key-store";

/** What the console reads of keys beyond the store's list: how many uses each has kept, a revoked key's label. */
const { apiKeys, apiKeyActivity } = control;

/** Uses kept per key (at most `apiKeyActivityLimit` each: the ledger prunes the rest). */
export async function activityCounts(db: DrizzleD1Database, keyIds: string[]): Promise<Map<string, number>> {
  if (keyIds.length === 0) return new Map();
  const rows = await db
    .select({ apiKeyId: apiKeyActivity.apiKeyId, uses: count() })
    .from(apiKeyActivity)
    .where(inArray(apiKeyActivity.apiKeyId, keyIds))
    .groupBy(apiKeyActivity.apiKeyId);
  return new Map(rows.map((row) => [row.apiKeyId, row.uses]));
}

/** Name and prefix of one of the owner's keys, live or revoked: what a notice after an action names. */
export async function keyLabel(db: DrizzleD1Database, owner: KeyOwner, id: string) {
  const [row] = await db
    .select({ name: apiKeys.name, prefix: apiKeys.prefix, revokedAt: apiKeys.revokedAt })
    .from(apiKeys)
    .where(
      and(
        eq(apiKeys.id, id),
        eq(apiKeys.organizationId, owner.organizationId),
        eq(apiKeys.ownerType, "user"),
        eq(apiKeys.ownerId, owner.userId),
      ),
    );
  return row ?? null;
}

/** How a key is shown without its secret. */
export const maskedKey = (prefix: string) => `crm_${prefix}_…`;
