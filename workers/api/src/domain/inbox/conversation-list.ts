import { regional } from "@crm/db";
import { and, eq, inArray, type SQL, sql } from "drizzle-orm";
import type { Database } from "../../env";
import type { KeysetColumn } from "../../pagination";
import type { ConversationRow } from "./response";
import { conversationMatches, matchExpression } from "./search";
import type { ConversationFilter, ConversationSort } from "./view-filter";

const { conversationAssignees, conversations } = regional;

/**
 * The conversation list query. Plan (checked in test/inbox-conversations.test.ts): the workspace's
 * conversations are read in list order from the index that also holds the filter's column
 * (`conversations_workspace_closed | _linked | _mailbox`, else `_last_message` or `_created`), so a
 * page stops after `limit + 1` matches without sorting; assignees are probed through their primary
 * key, and `q` is answered by the FTS5 index.
 */
export interface ConversationQuery {
  workspaceId: string;
  /** Record-scoped inbox access (`record_read`, `record_reply`): only conversations linked to a record. */
  linkedOnly: boolean;
  /** The view's filter and the request's own: a conversation must meet all of them. */
  filters: ConversationFilter[];
  sort: ConversationSort | undefined;
}

/** The list order: the view's sort (last message by default, newest first), then the id in the same direction. */
export function conversationOrder(sort: ConversationSort | undefined): KeysetColumn<ConversationRow>[] {
  const direction = sort?.direction ?? "desc";
  const byCreation = sort?.field === "createdAt";
  return [
    {
      column: byCreation ? conversations.createdAt : conversations.lastMessageAtMs,
      direction,
      valueIn: (row) => (byCreation ? row.createdAt : row.lastMessageAtMs),
    },
    { column: conversations.id, direction, valueIn: (row) => row.id },
  ];
}

function filterConditions(filter: ConversationFilter): (SQL | undefined)[] {
  const expression = filter.q === undefined ? null : matchExpression(filter.q);
  return [
    filter.isClosed === undefined ? undefined : eq(conversations.isClosed, filter.isClosed),
    filter.hasLinkedRecords === undefined ? undefined : eq(conversations.hasLinkedRecords, filter.hasLinkedRecords),
    filter.mailbox === undefined ? undefined : eq(conversations.mailbox, filter.mailbox.toLowerCase()),
    filter.assigneeUserIds?.length
      ? sql`exists (select 1 from ${conversationAssignees} where ${conversationAssignees.conversationId} = ${conversations.id} and ${inArray(conversationAssignees.userId, filter.assigneeUserIds)})`
      : undefined,
    // Words of nothing but punctuation search for nothing, which every conversation matches.
    expression === null ? undefined : conversationMatches(conversations.id, expression),
  ];
}

/** One page of the list: the query's conversations after the position, in list order. */
export function conversationPage(
  db: Database,
  query: ConversationQuery,
  page: { after: SQL | undefined; orderBy: SQL[]; limit: number },
) {
  return db
    .select()
    .from(conversations)
    .where(
      and(
        eq(conversations.workspaceId, query.workspaceId),
        query.linkedOnly ? eq(conversations.hasLinkedRecords, true) : undefined,
        ...query.filters.flatMap(filterConditions),
        page.after,
      ),
    )
    .orderBy(...page.orderBy)
    .limit(page.limit);
}
