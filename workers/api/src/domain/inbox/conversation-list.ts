import { regional } from "@crm/db";
import { and, eq, gt, inArray, lte, type SQL, sql } from "drizzle-orm";
import type { Database } from "../../database";
import type { KeysetColumn, KeysetValue } from "../../pagination";
import type { ConversationRow } from "./response";
import { conversationMatches, matchExpression, matchingConversations } from "./search";
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
 * What drives a list when a filter is narrow: the conversation ids of a tag filter under the cap,
 * read by primary key; or a search, whose page statement reads the match set once and picks the
 * side itself (`searchedPage`). The result is the same either way: every condition still applies.
 */
export type SearchDriver =
  | { ids: string[] }
  | {
      /** The FTS expression whose match set drives; its membership test is then not repeated. */
      expression: string;
      /** Up to this many matches the page reads them by primary key, above it walks the list index. */
      cap: number;
    };

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
    // No round trip: how many match is counted inside the page's own statement.
    if (expression !== null) return { expression, cap };
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
    expression === null || (driver && "expression" in driver && expression === driver.expression)
      ? undefined
      : conversationMatches(conversations.id, expression),
  ];
}

/**
 * One page of the list: the query's conversations after the position, in list order. With ids to
 * drive (`searchDriver`), the conversations are read by primary key from those ids (one JSON
 * parameter, as D1 caps bound parameters) and sorted; `+workspace_id` keeps the planner off the
 * workspace indexes, which would walk the whole list. A search drives through `searchedPage`.
 * Every condition still applies.
 */
export function conversationPage(
  db: Database,
  query: ConversationQuery,
  page: { after: SQL | undefined; orderBy: SQL[]; limit: number },
  driver?: SearchDriver,
) {
  const conditions = (scope: SQL) =>
    and(
      scope,
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
    );
  const where =
    driver === undefined
      ? conditions(eq(conversations.workspaceId, query.workspaceId))
      : "ids" in driver
        ? conditions(
            sql`+${conversations.workspaceId} = ${query.workspaceId} and ${conversations.id} in (select value from json_each(${JSON.stringify(driver.ids)}))`,
          )
        : sql`${conversations.id} in (${searchedPage(query.workspaceId, driver, page, conditions)})`;
  return db
    .select()
    .from(conversations)
    .where(where)
    .orderBy(...page.orderBy)
    .limit(page.limit);
}

/**
 * The ids of a search's page, ranked and paged inside the one statement that reads the FTS match
 * set: the set is materialized once and counted; up to the cap its conversations are read by primary
 * key and sorted (`+workspace_id` keeps the planner off the list indexes), above it the list index is
 * walked in order with the set as a membership test (`+id` keeps the planner from driving by it).
 * The count picks the branch through each one's LIMIT: SQLite leaves a loop whose LIMIT is 0 before
 * reading a row, where a constant WHERE term would still be tested on every row of the walk.
 */
function searchedPage(
  workspaceId: string,
  { expression, cap }: { expression: string; cap: number },
  page: { orderBy: SQL[]; limit: number },
  conditions: (scope: SQL) => SQL | undefined,
) {
  const matches = sql`(select count(*) from matched)`;
  // A walk's read of the conversations that moved since it began (`pageAsBegun`) asks for no order.
  const order = page.orderBy.length === 0 ? sql`` : sql` order by ${sql.join(page.orderBy, sql`, `)}`;
  const branch = (scope: SQL, taken: SQL) =>
    sql`select ${conversations.id} from ${conversations} where ${conditions(scope)}${order} limit case when ${taken} then ${page.limit} else 0 end`;
  const byId = branch(
    sql`+${conversations.workspaceId} = ${workspaceId} and ${conversations.id} in (select id from matched)`,
    sql`${matches} <= ${cap}`,
  );
  const walked = branch(
    sql`${conversations.workspaceId} = ${workspaceId} and +${conversations.id} in (select id from matched)`,
    sql`${matches} > ${cap}`,
  );
  return sql`with matched(id) as materialized (${matchingConversations(workspaceId, expression)})
    select id from (${byId}) union all select id from (${walked})`;
}
