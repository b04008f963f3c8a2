import { control, newId } from "@crm/db";
import { eq, sql } from "drizzle-orm";
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

/**
 * Everything a request leaves behind in the control plane, written in one D1 batch after the
 * response has gone: the key's lastUsedAt and activity row, and the token-usage ledger (2xx only).
 */
export async function recordUse(db: DrizzleD1Database, use: CredentialUse): Promise<void> {
  const statements: BatchItem<"sqlite">[] = [];
  if (use.apiKeyId) {
    statements.push(
      db.update(control.apiKeys).set({ lastUsedAt: use.at }).where(eq(control.apiKeys.id, use.apiKeyId)),
      db.insert(control.apiKeyActivity).values({
        id: newId("act", use.at),
        apiKeyId: use.apiKeyId,
        at: use.at,
        method: use.method,
        route: use.route,
        status: use.status,
        ip: use.ip,
      }),
    );
  }
  if (use.status >= 200 && use.status < 300) {
    const { tokenUsage } = control;
    statements.push(
      db
        .insert(tokenUsage)
        .values({
          organizationId: use.organizationId,
          day: new Date(use.at).toISOString().slice(0, 10),
          route: `${use.method} ${use.route}`,
          requests: 1,
          costUnits: use.costUnits,
        })
        .onConflictDoUpdate({
          target: [tokenUsage.organizationId, tokenUsage.day, tokenUsage.route],
          set: { requests: sql`${tokenUsage.requests} + 1`, costUnits: sql`${tokenUsage.costUnits} + excluded.cost_units` },
        }),
    );
  }
  const [first, ...rest] = statements;
  if (first) await db.batch([first, ...rest]);
}
