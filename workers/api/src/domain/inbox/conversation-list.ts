import { regional } from "@crm/db";
import { and, eq, gt, inArray, lte, type SQL, sql } from "drizzle-orm";
import type { Database } from "../../env";
import type { KeysetColumn, KeysetValue } from "../../pagination";
import type { ConversationRow } from "./response";
import { conversationMatches, matchExpression, matchingConversationIds } from "./search";
import type { ConversationFilter, ConversationSort } from "./view-filter";

const { conversationAssignees, conversationRecords, conversationTags, conversations, messages } = regional;

/**
 * The conversation list query. Plan (checked in test/inbox-conversations.test.ts): the workspace's
 * conversations are read in list order from the index that also holds the filter's column
 * (`conversations_workspace_closed | _linked | _mailbox`, else `_last_message` or `_created`), so a
 * page stops after `limit + 1` matches without sorting; assignees and tags are probed through their
 * primary keys, and `q` is answered by the FTS5 indexes. A tag filter or a search picks its driving
 * side by selectivity (`searchDriver`): a set under the cap is read by primary key and sorted (a small sort),
 * a broad one keeps the index walk with the FTS membership test, which finds a page quickly.
 */
export interface ConversationQuery {
  workspaceId: string;
  /** Only the conversations linked to this record, by hand or by attendee (a record's conversation list). */
  recordId?: string;
  /** Record-scoped inbox access (`record_read`, `record_reply`): only conversations linked to a record. */
  linkedOnly: boolean;
  /** The view's filter and the request's own: a conversation must meet all of them. */
  filters: ConversationFilter[];
  sort: ConversationSort | undefined;
}

/** A conversation as a walk lists it: `listKey` is its last message's time when the walk began, if it moved since. */
export type ListedConversation = ConversationRow & { listKey?: number };

/** The list order: the view's sort (last message by default, newest first), then the id in the same direction. */
export function conversationOrder(sort: ConversationSort | undefined): KeysetColumn<ListedConversation>[] {
  const direction = sort?.direction ?? "desc";
  const byCreation = sort?.field === "createdAt";
  return [
    {
      column: byCreation ? conversations.createdAt : conversations.lastMessageAtMs,
      direction,
      valueIn: (row) => (byCreation ? row.createdAt : (row.listKey ?? row.lastMessageAtMs)),
    },
    { column: conversations.id, direction, valueIn: (row) => row.id },
  ];
}

/**
 * A later page of a walk ordered by last message (DESIGN.md section 2: paging never skips a
 * conversation that existed when the walk began). The cursor carries the time of the first page,
 * and the walk orders by what each conversation's last message time was then: conversations with
 * no message since are read from the list index as always; those that moved (a message arrived
 * since) are few, read through the same index above that time, keyed by their last message up to
 * it, and merged in. Conversations started since are not part of the walk.
 */
export async function pageAsBegun(
  db: Database,
  query: ConversationQuery,
  page: { after: SQL | undefined; orderBy: SQL[]; limit: number; position: KeysetValue[]; begunAtMs: number },
  direction: "asc" | "desc",
  driver?: SearchDriver,
): Promise<ListedConversation[]> {
  const { begunAtMs, position } = page;
  const [unchanged, moved] = await Promise.all([
    conversationPage(db, query, { ...page, after: and(page.after, lte(conversations.lastMessageAtMs, begunAtMs)) }, driver),
    conversationPage(
      db,
      query,
      { after: gt(conversations.lastMessageAtMs, begunAtMs), orderBy: [], limit: maxMovedPerPage },
      driver,
    ),
  ]);
  const keys =
    moved.length === 0
      ? []
      : await lastMessageBefore(
          db,
          moved.map((row) => row.id),
          begunAtMs,
        );
  const keyOf = new Map(keys.map((row) => [row.conversationId, row.at]));
  const [positionKey, positionId] = position as [number, string];
  const sign = direction === "desc" ? -1 : 1;
  const compare = (a: ListedConversation, b: { key: number; id: string }) =>
    sign * ((a.listKey ?? a.lastMessageAtMs) - b.key || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const movedRows = moved
    .filter((row) => keyOf.has(row.id))
    .map((row) => ({ ...row, listKey: keyOf.get(row.id) as number }))
    .filter((row) => compare(row, { key: positionKey, id: positionId }) > 0);
  const listed: ListedConversation[] = [...unchanged, ...movedRows];
  return listed.sort((a, b) => compare(a, { key: b.listKey ?? b.lastMessageAtMs, id: b.id })).slice(0, page.limit);
}

/** Conversations a walk may hold at once that moved since it began; a busier inbox pages on from a fresh start. */
const maxMovedPerPage = 1_000;

/** Each conversation's last message up to a time (served by `messages_conversation_created`). */
function lastMessageBefore(db: Database, conversationIds: string[], atMs: number) {
  return db
    .select({ conversationId: messages.conversationId, at: sql<number>`max(${messages.createdAt})` })
    .from(messages)
    .where(
      and(
        sql`${messages.conversationId} in (select value from json_each(${JSON.stringify(conversationIds)}))`,
        lte(messages.createdAt, atMs),
      ),
    )
    .groupBy(messages.conversationId);
}

/**
 * How many matching conversations a search reads by id before it walks the list index instead.
 * Measured (docs/benchmarks.md, 100 000 conversations): 20 matches read by id beat the walk by far,
 * 1 000 matches (a word in one conversation of 100) cost more by id than the walk, which finds a
 * page of 51 after about 5 000 index rows.
 */
export const SEARCH_DRIVER_CAP = 500;

/**
 * The conversation ids that drive a list, when a filter's `tagIds` or `q` selects fewer than `cap`
 * conversations of the workspace: the page is then read by primary key from those ids. Undefined
 * when no filter is that narrow. The result is the same either way: every condition still applies.
 */
export interface SearchDriver {
  /** The FTS expression whose match set drives, if a search drives; its membership test is then not repeated. */
  expression?: string;
  ids: string[];
}

/** The workspace's conversations with any of the tags, from the tag index, at most `cap + 1` of them. */
async function taggedConversationIds(db: Database, workspaceId: string, tagIds: string[], cap: number) {
  const rows = await db
    .selectDistinct({ id: conversationTags.conversationId })
    .from(conversationTags)
    .where(and(inArray(conversationTags.tagId, tagIds), eq(conversationTags.workspaceId, workspaceId)))
    .limit(cap + 1);
  return rows.map((row) => row.id);
}

export async function searchDriver(
  db: Database,
  query: ConversationQuery,
  cap: number = SEARCH_DRIVER_CAP,
): Promise<SearchDriver | undefined> {
  for (const filter of query.filters) {
    if (filter.tagIds?.length) {
      const ids = await taggedConversationIds(db, query.workspaceId, filter.tagIds, cap);
      if (ids.length <= cap) return { ids };
    }
    const expression = filter.q === undefined ? null : matchExpression(filter.q);
    if (expression === null) continue;
    const ids = await matchingConversationIds(db, query.workspaceId, expression, cap);
    if (ids.length <= cap) return { expression, ids };
  }
  return undefined;
}

function filterConditions(filter: ConversationFilter, driver: SearchDriver | undefined): (SQL | undefined)[] {
  const expression = filter.q === undefined ? null : matchExpression(filter.q);
  return [
    filter.isClosed === undefined ? undefined : eq(conversations.isClosed, filter.isClosed),
    filter.hasLinkedRecords === undefined ? undefined : eq(conversations.hasLinkedRecords, filter.hasLinkedRecords),
    filter.mailbox === undefined ? undefined : eq(conversations.mailbox, filter.mailbox.toLowerCase()),
    filter.assigneeUserIds?.length
      ? sql`exists (select 1 from ${conversationAssignees} where ${conversationAssignees.conversationId} = ${conversations.id} and ${inArray(conversationAssignees.userId, filter.assigneeUserIds)})`
      : undefined,
    filter.tagIds?.length
      ? sql`exists (select 1 from ${conversationTags} where ${conversationTags.conversationId} = ${conversations.id} and ${inArray(conversationTags.tagId, filter.tagIds)})`
      : undefined,
    // Words of nothing but punctuation search for nothing, which every conversation matches.
    // The driving match set is already the ids read (of this workspace); other searches are tested.
    expression === null || expression === driver?.expression ? undefined : conversationMatches(conversations.id, expression),
  ];
}

/**
 * One page of the list: the query's conversations after the position, in list order. With
 * `driver` (from `searchDriver`), the conversations are read by primary key from those ids (one
 * JSON parameter, as D1 caps bound parameters) and sorted; `+workspace_id` keeps the planner off
 * the workspace indexes, which would walk the whole list. Every condition still applies.
 */
export function conversationPage(
  db: Database,
  query: ConversationQuery,
  page: { after: SQL | undefined; orderBy: SQL[]; limit: number },
  driver?: SearchDriver,
) {
  return db
    .select()
    .from(conversations)
    .where(
      and(
        driver === undefined
          ? eq(conversations.workspaceId, query.workspaceId)
          : sql`+${conversations.workspaceId} = ${query.workspaceId} and ${conversations.id} in (select value from json_each(${JSON.stringify(driver.ids)}))`,
        query.linkedOnly ? eq(conversations.hasLinkedRecords, true) : undefined,
        query.recordId === undefined
          ? undefined
          : inArray(
              conversations.id,
              db
                .select({ id: conversationRecords.conversationId })
                .from(conversationRecords)
                .where(eq(conversationRecords.recordId, query.recordId)),
            ),
        ...query.filters.flatMap((filter) => filterConditions(filter, driver)),
        page.after,
      ),
    )
    .orderBy(...page.orderBy)
    .limit(page.limit);
}
