import { regional } from "@crm/db";
import { and, asc, inArray, isNull, lt } from "drizzle-orm";
import type { Database, RegionEnv } from "../../env";
import type { EventMessage } from "./messages";

const { eventOutbox } = regional;

/**
 * Moves events from the outbox to the events Queue: right after each write (off the response
 * path) and from the cron sweeper for anything left behind by a crash (`olderThanMs`). A row is
 * marked queued only after the Queue accepted it, so events are delivered at least once; a row
 * sent twice by racing dispatchers gives the same delivery ids, which receivers deduplicate.
 */
export async function dispatchOutbox(
  db: Database,
  env: Pick<RegionEnv, "EVENTS">,
  olderThanMs = 0,
  now = Date.now(),
): Promise<number> {
  let sent = 0;
  for (;;) {
    const rows = await db
      .select()
      .from(eventOutbox)
      .where(and(isNull(eventOutbox.queuedAt), olderThanMs > 0 ? lt(eventOutbox.createdAt, now - olderThanMs) : undefined))
      .orderBy(asc(eventOutbox.createdAt))
      .limit(100);
    if (rows.length === 0) return sent;
    await env.EVENTS.sendBatch(
      rows.map((row) => ({
        body: {
          eventId: row.id,
          workspaceId: row.workspaceId,
          objectTypeId: row.objectTypeId,
          type: row.type,
          payload: row.payload,
        } as EventMessage,
      })),
    );
    await db
      .update(eventOutbox)
      .set({ queuedAt: Date.now() })
      .where(
        inArray(
          eventOutbox.id,
          rows.map((row) => row.id),
        ),
      );
    sent += rows.length;
  }
}
