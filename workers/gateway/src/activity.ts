import { control, newId } from "@crm/db";
import { eq } from "drizzle-orm";
import type { DrizzleD1Database } from "drizzle-orm/d1";

/** Records one use of an API key: `lastUsedAt` and a row of its activity history, in one batch. */
export async function recordKeyActivity(
  db: DrizzleD1Database,
  use: { apiKeyId: string; method: string; route: string; status: number; ip: string | null; at: number },
): Promise<void> {
  await db.batch([
    db.update(control.apiKeys).set({ lastUsedAt: use.at }).where(eq(control.apiKeys.id, use.apiKeyId)),
    db.insert(control.apiKeyActivity).values({ id: newId("act", use.at), ...use }),
  ]);
}
