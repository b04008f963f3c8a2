import { regional } from "@crm/db";
import { and, asc, inArray, isNull, lt, or, sql } from "drizzle-orm";
import type { RegionEnv, ShardDatabase } from "../../env";
import type { EventsMessage, OutboxEvent } from "./messages";
import { jsonBytes, type SizedMessage, sendInBatches } from "./queue-batches";

const { eventOutbox } = regional;

/** A claim not followed by `queued_at` within this time was left by a dispatcher that died. */
const claimLeaseMs = 60_000;
/**
 * Rows claimed at a time. Their ids travel back as one JSON parameter when they are marked queued
 * (D1 binds at most 100 parameters), so a claim is bounded by what a D1 answer and a few Queue
 * batches carry comfortably, and an outbox of thousands drains in few D1 calls.
 */
const claimSize = 500;
/** Events gathered into one Queue message of up to this many bytes (a message holds at most 128 KB). */
const messageBytes = 100_000;

/**
 * Moves events from the outbox to the events Queue: right after each write (off the response
 * path) and from the cron sweeper for anything left behind by a crash (`olderThanMs`). A
 * dispatcher first claims rows (so concurrent requests do not send the same events), sends them,
 * then marks them queued; rows whose claim expired without that mark are claimed again. So every
 * event is sent at least once; a resend carries the same delivery ids, which receivers deduplicate.
 * Each message names the shard it comes from, where its consumers read and write.
 */
export async function dispatchOutbox(
  { shard, db }: ShardDatabase,
  env: Pick<RegionEnv, "EVENTS">,
  olderThanMs = 0,
  now = Date.now(),
): Promise<number> {
  let sent = 0;
  for (;;) {
    const claimable = db
      .select({ id: eventOutbox.id })
      .from(eventOutbox)
      .where(
        and(
          isNull(eventOutbox.queuedAt),
          or(isNull(eventOutbox.claimedAt), lt(eventOutbox.claimedAt, now - claimLeaseMs)),
          olderThanMs > 0 ? lt(eventOutbox.createdAt, now - olderThanMs) : undefined,
        ),
      )
      .orderBy(asc(eventOutbox.createdAt))
      .limit(claimSize);
    const rows = await db
      .update(eventOutbox)
      .set({ claimedAt: Date.now() })
      .where(inArray(eventOutbox.id, claimable))
      .returning();
    if (rows.length === 0) return sent;
    const events = rows.map(
      (row): OutboxEvent => ({
        eventId: row.id,
        workspaceId: row.workspaceId,
        objectTypeId: row.objectTypeId,
        type: row.type as OutboxEvent["type"],
        createdAt: row.createdAt,
        payload: row.payload,
      }),
    );
    await sendInBatches(env.EVENTS, gathered(shard, events));
    await db
      .update(eventOutbox)
      .set({ queuedAt: Date.now() })
      .where(sql`${eventOutbox.id} in (select value from json_each(${JSON.stringify(rows.map((row) => row.id))}))`);
    sent += rows.length;
  }
}

/**
 * The shard's events in order, gathered into messages of at most `messageBytes` as JSON (an event
 * larger than that goes alone). Each event is measured once; the message adds its brackets and commas.
 */
function gathered(shard: number, events: OutboxEvent[]): SizedMessage<EventsMessage>[] {
  const envelope = jsonBytes({ shard, events: [] });
  const messages: SizedMessage<EventsMessage>[] = [];
  let message: SizedMessage<EventsMessage> = { body: { shard, events: [] }, bytes: envelope };
  for (const event of events) {
    const size = jsonBytes(event) + 1;
    if (message.body.events.length > 0 && message.bytes + size > messageBytes) {
      messages.push(message);
      message = { body: { shard, events: [] }, bytes: envelope };
    }
    message.body.events.push(event);
    message.bytes += size;
  }
  if (message.body.events.length > 0) messages.push(message);
  return messages;
}
