import { DurableObject } from "cloudflare:workers";
import { control, newId } from "@crm/db";
import { eq, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { drizzle } from "drizzle-orm/d1";
import type { GatewayEnv } from "./env";

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
const maxUsesPerFlush = 500;

/**
 * What requests leave behind in the control plane (API keys' lastUsedAt and activity rows, the
 * token-usage ledger), gathered per organization and written to D1 in one batch about once a
 * second. A D1 write on every request would halve the gateway's throughput; a call to this
 * object costs a fraction of that. Uses wait in the object's own SQLite storage, so an eviction
 * between a request and the flush loses nothing.
 */
export class UsageRecorder extends DurableObject<GatewayEnv> {
  constructor(ctx: DurableObjectState, env: GatewayEnv) {
    super(ctx, env);
    ctx.storage.sql.exec("create table if not exists pending (seq integer primary key autoincrement, use text not null)");
  }

  async record(use: CredentialUse): Promise<void> {
    this.ctx.storage.sql.exec("insert into pending (use) values (?)", JSON.stringify(use));
    if ((await this.ctx.storage.getAlarm()) === null) await this.ctx.storage.setAlarm(Date.now() + flushDelayMs);
  }

  override async alarm(): Promise<void> {
    const rows = this.ctx.storage.sql
      .exec<{ seq: number; use: string }>("select seq, use from pending order by seq limit ?", maxUsesPerFlush)
      .toArray();
    if (rows.length === 0) return;
    await writeUses(
      drizzle(this.env.CONTROL_DB),
      rows.map((row) => JSON.parse(row.use) as CredentialUse),
    );
    // Deleted only once written: a failed flush throws, and the alarm is retried with the rows intact.
    this.ctx.storage.sql.exec("delete from pending where seq <= ?", rows.at(-1)?.seq ?? 0);
    const [{ remaining } = { remaining: 0 }] = this.ctx.storage.sql
      .exec<{ remaining: number }>("select count(*) as remaining from pending")
      .toArray();
    if (remaining > 0) await this.ctx.storage.setAlarm(Date.now());
  }
}

/** One D1 batch: activity rows, each key's latest lastUsedAt, and the ledger summed per (organization, day, route). */
async function writeUses(db: ReturnType<typeof drizzle>, uses: CredentialUse[]): Promise<void> {
  const statements: BatchItem<"sqlite">[] = [];
  const lastUsed = new Map<string, number>();
  const ledger = new Map<string, { organizationId: string; day: string; route: string; requests: number; costUnits: number }>();
  for (const use of uses) {
    if (use.apiKeyId) {
      lastUsed.set(use.apiKeyId, Math.max(lastUsed.get(use.apiKeyId) ?? 0, use.at));
      const { apiKeyId, method, route, status, ip, at } = use;
      statements.push(
        db.insert(control.apiKeyActivity).values({ id: newId("act", at), apiKeyId, at, method, route, status, ip }),
      );
    }
    if (use.status >= 200 && use.status < 300) {
      const day = new Date(use.at).toISOString().slice(0, 10);
      const route = `${use.method} ${use.route}`;
      const key = `${use.organizationId} ${day} ${route}`;
      const entry = ledger.get(key) ?? { organizationId: use.organizationId, day, route, requests: 0, costUnits: 0 };
      entry.requests += 1;
      entry.costUnits += use.costUnits;
      ledger.set(key, entry);
    }
  }
  for (const [apiKeyId, at] of lastUsed) {
    statements.push(db.update(control.apiKeys).set({ lastUsedAt: at }).where(eq(control.apiKeys.id, apiKeyId)));
  }
  const { tokenUsage } = control;
  for (const entry of ledger.values()) {
    statements.push(
      db
        .insert(tokenUsage)
        .values(entry)
        .onConflictDoUpdate({
          target: [tokenUsage.organizationId, tokenUsage.day, tokenUsage.route],
          set: {
            requests: sql`${tokenUsage.requests} + excluded.requests`,
            costUnits: sql`${tokenUsage.costUnits} + excluded.cost_units`,
          },
        }),
    );
  }
  const [first, ...rest] = statements;
  if (first) await db.batch([first, ...rest]);
}
