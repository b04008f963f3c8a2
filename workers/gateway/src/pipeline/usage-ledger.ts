/*
 * Invariant: a use recorded here is written to the control D1 once (a batch is one transaction: a
 * refused one wrote nothing, and its uses go back to the front), or, only when more than
 * `maxPendingUses` wait, dropped and counted in the request's log line (`usesDropped`) and a log
 * line of its own. While any use waits, a flush is under way in some request's `waitUntil`, or the
 * next recorded use starts one: a refused write is retried with back-off, never left unscheduled.
 */

import { apiKeyActivityLimit, logUnexpectedError } from "@crm/contracts";
import { control, inJsonList, insertRowsAsJson, newId, runBatch } from "@crm/db";
import { gt, inArray, sql } from "drizzle-orm";
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
/**
 * Waits before writing again after the control D1 refused a batch. Their sum stays inside the 30 s a
 * request's `waitUntil` may run after its response; a later request starts the next round.
 */
const retryDelaysMs = [500, 1_000, 2_000, 4_000, 8_000];
/** Uses kept at most while the control D1 refuses them: beyond that the oldest go, counted and logged. */
export const maxPendingUses = 20_000;

/** Uses of this isolate not yet written. Plain data: any request's flush may write them. */
const pending: CredentialUse[] = [];
const { tokenUsage, tokenUsageByKey } = control;
/** The flush under way: one at a time. */
let flushing: Promise<void> | null = null;
/** How often a gathering flush looks whether a full batch is waiting. */
const pollMs = 50;

/**
 * Records what a request leaves behind in the control plane (an API key's lastUsedAt and activity
 * row, the token-usage ledger), off the response path. A D1 write per request halved the gateway's
 * throughput, so uses gather in the isolate and go to D1 in one batch: after a second, or at once
 * when 200 are waiting. The request that starts a flush keeps it alive with `waitUntil` until
 * written. Answers how many uses had to be dropped to keep the buffer bounded (0 unless the control
 * D1 has refused writes for long).
 */
export function recordUse(db: DrizzleD1Database, use: CredentialUse, waitUntil: (promise: Promise<unknown>) => void): number {
  pending.push(use);
  const dropped = dropOverflow();
  if (!flushing) {
    flushing = flush(db).finally(() => {
      flushing = null;
    });
    waitUntil(flushing);
  }
  return dropped;
}

/** Keeps at most `maxPendingUses` waiting, dropping the oldest; answers how many went. */
function dropOverflow(): number {
  const over = pending.length - maxPendingUses;
  if (over <= 0) return 0;
  pending.splice(0, over);
  console.warn(JSON.stringify({ message: "usage dropped", usesDropped: over, waiting: pending.length }));
  return over;
}

/**
 * Waits `ms`, or less once a full batch waits, on the flushing request's own timers: another
 * request may not settle a promise this one made (the runtime refuses I/O across requests).
 */
async function pause(ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (pending.length < maxUsesPerFlush && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, Math.min(pollMs, until - Date.now())));
  }
}

/**
 * Writes what waits, 200 uses a batch, after the gathering delay. A refused batch goes back to the
 * front and is tried again after each of `retryDelaysMs`; after the last, the round ends with the
 * uses still waiting, and the next recorded use starts another.
 */
async function flush(db: DrizzleD1Database): Promise<void> {
  if (pending.length < maxUsesPerFlush) await pause(flushDelayMs);
  let failures = 0;
  while (pending.length > 0) {
    const uses = pending.splice(0, maxUsesPerFlush);
    try {
      await writeUses(db, uses);
      failures = 0;
    } catch (error) {
      pending.unshift(...uses);
      dropOverflow();
      logUnexpectedError(error, { operation: `usage flush, attempt ${failures + 1}`, count: pending.length });
      const delay = retryDelaysMs[failures++];
      if (delay === undefined) return;
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}

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

/**
 * One D1 batch of at most five statements, however many keys, organizations and routes the uses
 * span: the activity rows; each key's latest lastUsedAt; each key's activity pruned to what
 * `GET /api-keys/{id}` shows (one row a request would grow the control D1 without end); and the
 * ledger summed per (organization, day, route) and per (key, day, route). Every list travels as one
 * JSON parameter: a statement per key and route made a flush of many tenants' uses hundreds of
 * statements, each built by drizzle and prepared by D1 on its own (the scale benchmark, issue 30).
 */
async function writeUses(db: DrizzleD1Database, uses: CredentialUse[]): Promise<void> {
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
  const statements: BatchItem<"sqlite">[] = [];
  if (activity.length > 0) statements.push(insertRowsAsJson(db, control.apiKeyActivity, activity));
  if (lastUsed.size > 0) statements.push(...keysUsed(db, lastUsed));
  // On a conflict both ledgers add this batch's sums to the row as stored (unqualified columns are the stored row).
  const summed = { requests: sql`requests + excluded.requests`, costUnits: sql`cost_units + excluded.cost_units` };
  if (ledger.size > 0)
    statements.push(
      insertRowsAsJson(db, tokenUsage, [...ledger.values()]).onConflictDoUpdate({
        target: [tokenUsage.organizationId, tokenUsage.day, tokenUsage.route],
        set: summed,
      }),
    );
  if (keyLedger.size > 0)
    statements.push(
      insertRowsAsJson(db, tokenUsageByKey, [...keyLedger.values()]).onConflictDoUpdate({
        target: [tokenUsageByKey.apiKeyId, tokenUsageByKey.day, tokenUsageByKey.route],
        set: summed,
      }),
    );
  await runBatch(db, statements);
}

/**
 * The keys' lastUsedAt (`lastUsed`: key id → its latest use) and their activity pruned to the latest
 * `apiKeyActivityLimit` rows each, as two statements for all the keys.
 */
function keysUsed(db: DrizzleD1Database, lastUsed: Map<string, number>) {
  const { apiKeys, apiKeyActivity } = control;
  const ids = [...lastUsed.keys()];
  const latest = JSON.stringify(Object.fromEntries(lastUsed));
  const position = sql<number>`row_number() over (partition by ${apiKeyActivity.apiKeyId} order by ${apiKeyActivity.at} desc, ${apiKeyActivity.id} desc)`;
  const ranked = db
    .select({ id: apiKeyActivity.id, position: position.as("position") })
    .from(apiKeyActivity)
    .where(inJsonList(apiKeyActivity.apiKeyId, ids))
    .as("ranked");
  const beyondShown = db.select({ id: ranked.id }).from(ranked).where(gt(ranked.position, apiKeyActivityLimit));
  return [
    db
      .update(apiKeys)
      .set({ lastUsedAt: sql`json_extract(${latest}, '$."' || ${apiKeys.id} || '"')` })
      .where(inJsonList(apiKeys.id, ids)),
    db.delete(apiKeyActivity).where(inArray(apiKeyActivity.id, beyondShown)),
  ] as const;
}
