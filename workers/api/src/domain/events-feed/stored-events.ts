import { type EventType, eventRetentionMs, webhookTestEventType } from "@crm/contracts";
import { regional } from "@crm/db";
import { and, eq, gte, inArray, lt, ne, or, type SQL, sql } from "drizzle-orm";
import type { Database } from "../../database";

const { eventOutbox, conversations } = regional;

/**
 * The order events were written in: the outbox's rowid, which SQLite hands out at insert time. A
 * request that took its `createdAt` earlier but committed later still lands after every event a
 * reader has already passed, so paging by it never skips one (paging by `createdAt` could).
 */
export const writeOrder = sql<number>`${eventOutbox}.rowid`;

/** How far a commit can trail its `createdAt`: the `sinceMs` start looks back this much more, then filters. */
const commitSkewMs = 60_000;

/** Events of conversations, which members with record-scoped inbox access see only for linked conversations. */
const conversationEventTypes = ["conversation.created", "message.received", "message.sent"] satisfies EventType[];

/** Which events of a workspace a reader or a replay wants. */
export interface EventSelection {
  workspaceId: string;
  /** Only these types; undefined: the 14 triggers (never the test event, which went to one subscription only). */
  types?: string[] | undefined;
  /** Only events naming one of these object types; undefined: any. */
  objectTypeIds?: string[] | undefined;
  /** Written at or after this time (retention applies whatever is asked). */
  sinceMs: number;
  /** Written before this time; undefined: no end. */
  untilMs?: number | undefined;
  /** Members whose inbox access is record-scoped do not see events of conversations linked to no record. */
  linkedConversationsOnly: boolean;
}

/** The oldest time an event is kept from, for a reader at `now`. */
export const keptSince = (now: number) => now - eventRetentionMs;

/** The conditions of a selection, in SQL (never a filter over a fetched page). */
export function selectionConditions(selection: EventSelection, now: number): SQL {
  const conversationId = sql`case ${eventOutbox.type} when 'conversation.created' then ${eventOutbox.payload} ->> '$.data.id' else ${eventOutbox.payload} ->> '$.data.conversationId' end`;
  return and(
    eq(eventOutbox.workspaceId, selection.workspaceId),
    gte(eventOutbox.createdAt, Math.max(selection.sinceMs, keptSince(now))),
    selection.untilMs === undefined ? undefined : lt(eventOutbox.createdAt, selection.untilMs),
    selection.types ? inArray(eventOutbox.type, selection.types) : ne(eventOutbox.type, webhookTestEventType),
    selection.objectTypeIds ? inArray(eventOutbox.objectTypeId, selection.objectTypeIds) : undefined,
    selection.linkedConversationsOnly
      ? or(
          sql`${eventOutbox.type} not in (select value from json_each(${JSON.stringify(conversationEventTypes)}))`,
          sql`exists (select 1 from ${conversations} where ${conversations.id} = ${conversationId} and ${conversations.hasLinkedRecords} = 1)`,
        )
      : undefined,
  ) as SQL;
}

/**
 * Where reading from `sinceMs` starts in write order: the first event written at that time, less the
 * commit skew (the time filter drops what is earlier). One index probe instead of a walk over every
 * event of the workspace from 30 days back. Zero when none is that late.
 */
export async function startOfSince(db: Database, workspaceId: string, sinceMs: number): Promise<number> {
  const [first] = await db
    .select({ position: writeOrder })
    .from(eventOutbox)
    .where(and(eq(eventOutbox.workspaceId, workspaceId), gte(eventOutbox.createdAt, sinceMs - commitSkewMs)))
    .orderBy(eventOutbox.createdAt)
    .limit(1);
  return first ? first.position - 1 : Number.MAX_SAFE_INTEGER;
}

/** How much the scheduled sweep prunes: rows a statement, statements a run per shard. */
export interface PruneBounds {
  batch: number;
  batches: number;
}

/**
 * The scheduled sweep's pruning: events queued more than 30 days ago leave the outbox, oldest first,
 * at most `batch` rows a statement and `batches` statements a run, so a backlog is worked off over
 * several runs without one run holding the database. Each statement reads through the
 * `(queued_at, created_at)` index only as far as it deletes; it never deletes the newest row of the
 * shard, since SQLite hands out rowids after the largest one present and a feed cursor must never
 * meet a rowid again. Stopping anywhere loses nothing: a later run deletes what is left. An event
 * never queued stays until the dispatcher has sent it. Returns the rows deleted.
 */
export async function pruneEvents(db: Database, now = Date.now(), bounds: PruneBounds = { batch: 500, batches: 20 }) {
  const cutoff = keptSince(now);
  let deleted = 0;
  for (let batch = 0; batch < bounds.batches; batch++) {
    const result = await db.run(sql`
      delete from ${eventOutbox} where rowid in (
        select rowid from ${eventOutbox}
        where ${eventOutbox.queuedAt} < ${cutoff} and ${eventOutbox.createdAt} < ${cutoff}
          and rowid < (select max(rowid) from ${eventOutbox})
        order by ${eventOutbox.queuedAt} limit ${bounds.batch}
      )`);
    const changes = result.meta.changes ?? 0;
    deleted += changes;
    if (changes < bounds.batch) break;
  }
  return deleted;
}
