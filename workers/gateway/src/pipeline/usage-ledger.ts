import { apiKeyActivityLimit } from "@crm/contracts";
import { control, insertRowsAsJson, newId } from "@crm/db";
import { and, desc, eq, notInArray, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { DrizzleD1Database } from "drizzle-orm/d1";

export interface CredentialUse {
  organizationId: string;
  /** Set for API keys: their lastUsedAt and activity history. */
  apiKeyId: string | null;
  method: string;
  /** Path template of the operation, e.g. `/crm/objects/{objectTypeId}`. */
  route: string;
  status: number;
  ip: string | null;
  at: number;
  /** Token cost charged for this request (0 unless it succeeded). */
  costUnits: number;
}

/** How long uses gather before one D1 batch writes them; also the delay before they show in `GET /usage`. */
const flushDelayMs = 1_000;
const maxUsesPerFlush = 200;

/** Uses of this isolate not yet written. Plain data: any request's flush may write them. */
const pending: CredentialUse[] = [];
const { tokenUsage, tokenUsageByKey } = control;

/**
 * Records what a request leaves behind in the control plane (an API key's lastUsedAt and activity
 * row, the token-usage ledger), off the response path. A D1 write per request halved the gateway's
 * throughput, so uses gather in the isolate and go to D1 in one batch: after a second, or at once
 * when 200 are waiting. The request that starts a batch keeps it alive with `waitUntil` until
 * written, so an idle isolate still flushes. A failed write puts the uses back for the next batch.
 */
export function recordUse(db: DrizzleD1Database, use: CredentialUse, waitUntil: (promise: Promise<unknown>) => void): void {
  pending.push(use);
  if (pending.length >= maxUsesPerFlush) waitUntil(flush(db));
  else if (pending.length === 1) waitUntil(new Promise((resolve) => setTimeout(resolve, flushDelayMs)).then(() => flush(db)));
}

async function flush(db: DrizzleD1Database): Promise<void> {
  const uses = pending.splice(0, pending.length);
  if (uses.length === 0) return;
  try {
    await writeUses(db, uses);
  } catch (error) {
    pending.unshift(...uses.slice(0, maxUsesPerFlush));
    console.error(JSON.stringify({ usageFlush: String(error), uses: uses.length }));
  }
}

/**
 * One D1 batch: activity rows (one statement), each key's latest lastUsedAt and its activity pruned
 * to what `GET /api-keys/{id}` shows (one row a request would grow the control D1 without end), and
 * the ledger summed per (organization, day, route) and per (key, day, route).
 */
/** Counts one successful use into the ledger entry of what it is summed per (its key's values, in order). */
function addUse<Entry extends { requests: number; costUnits: number }>(
  ledger: Map<string, Entry>,
  per: Omit<Entry, "requests" | "costUnits">,
  costUnits: number,
): void {
  const key = Object.values(per).join(" ");
  const entry = ledger.get(key) ?? ({ ...per, requests: 0, costUnits: 0 } as Entry);
  entry.requests += 1;
  entry.costUnits += costUnits;
  ledger.set(key, entry);
}

async function writeUses(db: DrizzleD1Database, uses: CredentialUse[]): Promise<void> {
  const statements: BatchItem<"sqlite">[] = [];
  const activity: (typeof control.apiKeyActivity.$inferInsert)[] = [];
  const lastUsed = new Map<string, number>();
  const ledger = new Map<string, typeof tokenUsage.$inferInsert>();
  const keyLedger = new Map<string, typeof tokenUsageByKey.$inferInsert>();
  for (const use of uses) {
    if (use.apiKeyId) {
      lastUsed.set(use.apiKeyId, Math.max(lastUsed.get(use.apiKeyId) ?? 0, use.at));
      const { apiKeyId, method, route, status, ip, at } = use;
      activity.push({ id: newId("act", at), apiKeyId, at, method, route, status, ip });
    }
    if (use.status >= 200 && use.status < 300) {
      const day = new Date(use.at).toISOString().slice(0, 10);
      const route = `${use.method} ${use.route}`;
      addUse(ledger, { organizationId: use.organizationId, day, route }, use.costUnits);
      if (use.apiKeyId) addUse(keyLedger, { apiKeyId: use.apiKeyId, day, route }, use.costUnits);
    }
  }
  if (activity.length > 0) statements.push(insertRowsAsJson(db, control.apiKeyActivity, activity));
  const { apiKeys, apiKeyActivity } = control;
  for (const [apiKeyId, at] of lastUsed) {
    statements.push(db.update(apiKeys).set({ lastUsedAt: at }).where(eq(apiKeys.id, apiKeyId)));
    const shown = db
      .select({ id: apiKeyActivity.id })
      .from(apiKeyActivity)
      .where(eq(apiKeyActivity.apiKeyId, apiKeyId))
      .orderBy(desc(apiKeyActivity.at), desc(apiKeyActivity.id))
      .limit(apiKeyActivityLimit);
    statements.push(
      db.delete(apiKeyActivity).where(and(eq(apiKeyActivity.apiKeyId, apiKeyId), notInArray(apiKeyActivity.id, shown))),
    );
  }
  // On a conflict both ledgers add this batch's sums to the row as stored (unqualified columns are the stored row).
  const summed = { requests: sql`requests + excluded.requests`, costUnits: sql`cost_units + excluded.cost_units` };
  for (const entry of ledger.values()) {
    statements.push(
      db
        .insert(tokenUsage)
        .values(entry)
        .onConflictDoUpdate({ target: [tokenUsage.organizationId, tokenUsage.day, tokenUsage.route], set: summed }),
    );
  }
  for (const entry of keyLedger.values()) {
    statements.push(
      db
        .insert(tokenUsageByKey)
        .values(entry)
        .onConflictDoUpdate({ target: [tokenUsageByKey.apiKeyId, tokenUsageByKey.day, tokenUsageByKey.route], set: summed }),
    );
  }
  const [first, ...rest] = statements;
  if (first) await db.batch([first, ...rest]);
}
