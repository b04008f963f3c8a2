import { logUnexpectedError, maxEventBytes } from "@crm/contracts";
import { insertRowsAsJson, newId, regional, runBatch } from "@crm/db";
import { and, asc, eq, inArray, isNull, lt, or, sql } from "drizzle-orm";
import type { Database, ShardDatabase } from "../../database";
import type { RegionEnv } from "../../env";
import { activeSubscriptions, deliveryId, subscribedTo } from "./fanout";
import type { EventsMessage, OutboxEvent } from "./messages";
import { jsonBytes, type SizedMessage, sendInBatches } from "./queue-batches";

const { eventOutbox, webhookAttempts } = regional;

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
 *
 * Invariant: no row holds back the rows behind it. An event over `maxEventBytes` (events are built
 * smaller; an older or defective row may not be) is set aside with its reason, counted and logged,
 * and shows as a failed delivery to each subscription it was for; a message the Queue refuses leaves
 * its rows claimed, to be claimed again after the lease, while the rest of the claim goes on.
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
          isNull(eventOutbox.setAsideAt),
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
    const oversized = events.filter((event) => jsonBytes(event) > maxEventBytes);
    if (oversized.length > 0) await setAside(db, shard, oversized);
    const queued = await sendEach(
      env.EVENTS,
      gathered(
        shard,
        events.filter((event) => !oversized.includes(event)),
      ),
    );
    await db
      .update(eventOutbox)
      .set({ queuedAt: Date.now() })
      .where(sql`${eventOutbox.id} in (select value from json_each(${JSON.stringify(queued)}))`);
    sent += queued.length;
  }
}

/**
 * Sends the messages, and answers the ids of the events that went. Should the Queue refuse a batch,
 * each of its messages is tried alone: one it still refuses is logged and its rows stay claimed (to
 * be claimed again after the lease), and the others go.
 */
async function sendEach(queue: Queue<EventsMessage>, messages: SizedMessage<EventsMessage>[]): Promise<string[]> {
  const idsOf = (message: SizedMessage<EventsMessage>) => message.body.events.map((event) => event.eventId);
  try {
    await sendInBatches(queue, messages);
    return messages.flatMap(idsOf);
  } catch {
    const sent: string[] = [];
    for (const message of messages) {
      try {
        await queue.send(message.body, { contentType: "json" });
        sent.push(...idsOf(message));
      } catch (error) {
        // The events stay in the outbox unqueued: the next dispatch tries them again.
        logUnexpectedError(error, { operation: "outbox events not queued", count: idsOf(message).length });
      }
    }
    return sent;
  }
}

/**
 * Events that cannot be sent are set aside, never claimed again: each row marked with its reason,
 * and a failed attempt (under the delivery id it would have had) for each subscription it was for,
 * so `GET /webhooks/{id}/deliveries` shows and counts it; one D1 batch, then one log line.
 */
async function setAside(db: Database, shard: number, events: OutboxEvent[]): Promise<void> {
  const now = Date.now();
  const reasons = new Map(
    events.map((event) => [
      event.eventId,
      `Not delivered: the event is ${jsonBytes(event)} bytes, over the ${maxEventBytes} an event may have`,
    ]),
  );
  const subscriptions = new Map(
    await Promise.all(
      [...new Set(events.map((event) => event.workspaceId))].map(
        async (workspaceId) => [workspaceId, await activeSubscriptions(db, workspaceId)] as const,
      ),
    ),
  );
  const attempts = await Promise.all(
    events.flatMap((event) =>
      (subscriptions.get(event.workspaceId) ?? [])
        .filter((webhook) => subscribedTo(webhook, event))
        .map(async (webhook) => ({
          id: newId("att", now),
          deliveryId: await deliveryId(event.eventId, webhook.id),
          attempt: 1,
          webhookId: webhook.id,
          eventId: event.eventId,
          eventType: event.type,
          status: "failed" as const,
          error: reasons.get(event.eventId) ?? null,
          responseStatus: null,
          durationMs: null,
          nextAttemptAt: null,
          createdAt: now,
        })),
    ),
  );
  await runBatch(db, [
    ...(attempts.length > 0 ? [insertRowsAsJson(db, webhookAttempts, attempts)] : []),
    ...events.map((event) =>
      db
        .update(eventOutbox)
        .set({ setAsideAt: now, setAsideReason: reasons.get(event.eventId) ?? null })
        .where(eq(eventOutbox.id, event.eventId)),
    ),
  ]);
  // Not an unexpected error: data that can never be sent, counted and named (ids, no content) for an operator.
  console.warn(
    JSON.stringify({
      message: "outbox events set aside",
      shard,
      count: events.length,
      events: events.map((event) => ({
        id: event.eventId,
        type: event.type,
        workspaceId: event.workspaceId,
        reason: reasons.get(event.eventId),
      })),
    }),
  );
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
