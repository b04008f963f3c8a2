import { ApiError, type Conversation, type Message, type operations, type WorkspaceRole } from "@crm/contracts";
import { regional, rowsPerStatement } from "@crm/db";
import { and, eq, inArray, isNull } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { loadInWorkspaceWith, reachWorkspace } from "../../access";
import { changeWithoutLoss, nextUpdatedAt, runConditionalBatch } from "../../conditional-write";
import type { Database } from "../../database";
import type { ServiceContext } from "../../env";
import type { BodyOf, QueryOf } from "../../inputs";
import { creationOrder, type KeysetColumn, paginate } from "../../pagination";
import { loadRecord } from "../records/service";
import { checkAssignees } from "../tasks/links";
import { linkedFlagStatement } from "./attendees";
import {
  type ConversationQuery,
  conversationOrder,
  conversationPage,
  type ListedConversation,
  pageAsBegun,
  type SearchDriver,
  searchDriver,
} from "./conversation-list";
import { type ConversationRow, conversationResponses, type MessageRow, messageResponses } from "./response";
import { checkTags } from "./tags";
import { type ConversationFilter, viewSelection } from "./view-filter";

const { conversationAssignees, conversationRecords, conversationTags, conversations, messages, records } = regional;

/**
 * A conversation the actor may see: the one loader's 404 and workspace checks, and then record-scoped
 * inbox access (reference rule 8): a conversation linked to no record does not exist for such members.
 */
export async function loadConversation({ db, actor }: ServiceContext, id: string, role?: WorkspaceRole) {
  const [row, , access] = await loadInWorkspaceWith(db, actor, conversations, id, { what: "Conversation", role }, async () => {});
  if (access.inboxAccess !== "all" && !row.hasLinkedRecords) throw new ApiError("not_found", "Conversation not found");
  return { row, access };
}

export async function readConversation(context: ServiceContext, conversationId: string): Promise<Conversation> {
  const { row } = await loadConversation(context, conversationId);
  return (await conversationResponses(context, row.workspaceId, [row]))[0] as Conversation;
}

/** The conversations of a workspace the actor may see, newest first, through a view and filters. */
export async function listConversationsOf(context: ServiceContext, input: QueryOf<typeof operations.listConversations>) {
  const { db, actor, cursorSecret } = context;
  const { workspaceId, viewId, limit, cursor, q, isClosed, hasLinkedRecords, assigneeUserId, tagIds } = input;
  const access = await reachWorkspace(db, actor, workspaceId, { what: "Workspace" });
  const view = viewId ? await viewSelection(db, actor, workspaceId, viewId) : undefined;
  const own: ConversationFilter = {
    ...(q === undefined ? {} : { q }),
    ...(isClosed === undefined ? {} : { isClosed }),
    ...(hasLinkedRecords === undefined ? {} : { hasLinkedRecords }),
    ...(assigneeUserId === undefined ? {} : { assigneeUserIds: [assigneeUserId] }),
    ...(tagIds === undefined ? {} : { tagIds }),
  };
  const query: ConversationQuery = {
    workspaceId,
    linkedOnly: access.inboxAccess !== "all",
    filters: view ? [view.filter, own] : [own],
    sort: view?.sort,
  };
  const driver = await searchDriver(db, query);
  // What the list holds depends on the caller (access, personal views) and on every parameter.
  const scope = `conversations:${workspaceId}:${actor.actor.id}:${JSON.stringify([viewId, own])}`;
  const page = await conversationWalk(db, query, { scope, limit, cursor }, cursorSecret, driver);
  return { data: await conversationResponses(context, workspaceId, page.data), pagination: page.pagination };
}

/** The conversations linked to a record (by hand or by attendee), newest first. */
export async function listConversationsOfRecord(
  context: ServiceContext,
  recordId: string,
  { limit, cursor }: QueryOf<typeof operations.listRecordConversations>,
) {
  const { db, cursorSecret } = context;
  const record = await loadRecord(context, recordId);
  const query: ConversationQuery = { workspaceId: record.workspaceId, recordId, linkedOnly: false, filters: [], sort: undefined };
  const page = await conversationWalk(db, query, { scope: `record-conversations:${recordId}`, limit, cursor }, cursorSecret);
  return { data: await conversationResponses(context, record.workspaceId, page.data), pagination: page.pagination };
}

/**
 * A page of a walk through a conversation list. Ordered by a key that moves (the last message), a
 * walk keeps the order it began with: the cursor carries the first page's time (`pageAsBegun`).
 */
function conversationWalk(
  db: Database,
  query: ConversationQuery,
  page: { scope: string; limit: number; cursor: string | undefined },
  cursorSecret: string,
  driver?: SearchDriver,
) {
  const byLastMessage = query.sort?.field !== "createdAt";
  return paginate<ListedConversation>(
    {
      ...page,
      order: conversationOrder(query.sort),
      ...(byLastMessage ? { snapshot: () => Date.now() } : {}),
      fetch: ({ position, snapshot, ...rest }) =>
        byLastMessage && position && snapshot !== undefined
          ? pageAsBegun(db, query, { ...rest, position, begunAtMs: snapshot }, query.sort?.direction ?? "desc", driver)
          : conversationPage(db, query, rest, driver),
    },
    cursorSecret,
  );
}

/** Live records of the workspace among `ids`; the others are 400 naming their position. */
async function checkLinkedRecords(db: Database, workspaceId: string, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  const found = await db
    .select({ id: records.id })
    .from(records)
    .where(and(inArray(records.id, ids), eq(records.workspaceId, workspaceId), isNull(records.deletedAt)));
  const known = new Set(found.map((row) => row.id));
  const problems = ids.flatMap((id, i) =>
    known.has(id) ? [] : [{ path: `linkedRecordIds.${i}`, message: "Not a record of the workspace" }],
  );
  if (problems.length > 0) throw new ApiError("invalid_request", "Linked records must be records of the workspace", problems);
}

/**
 * Closes or reopens a conversation, replaces its assignees and tags, and replaces the records linked
 * by hand (attendee links stay); `hasLinkedRecords` follows in the same batch.
 */
export async function updateConversationOf(
  context: ServiceContext,
  conversationId: string,
  changes: BodyOf<typeof operations.updateConversation>,
): Promise<Conversation> {
  const { db } = context;
  const assigneeUserIds = changes.assigneeUserIds && [...new Set(changes.assigneeUserIds)];
  const linkedRecordIds = changes.linkedRecordIds && [...new Set(changes.linkedRecordIds)];
  const tagIds = changes.tagIds && [...new Set(changes.tagIds)];
  const shown = async (row: ConversationRow) => (await conversationResponses(context, row.workspaceId, [row]))[0] as Conversation;
  return changeWithoutLoss(context, {
    what: "Conversation",
    named: Object.keys(changes),
    read: async () => {
      const { row } = await loadConversation(context, conversationId, "member");
      return { row, shown: await shown(row) };
    },
    shown: (read) => read.shown,
    write: async ({ row }) => {
      await Promise.all([
        checkAssignees(db, row.workspaceId, assigneeUserIds ?? []),
        checkLinkedRecords(db, row.workspaceId, linkedRecordIds ?? []),
        checkTags(db, row.workspaceId, tagIds ?? [], "tagIds"),
      ]);
      const updatedAt = nextUpdatedAt(row);
      const statements: BatchItem<"sqlite">[] = [];
      const owned = { conversationId: row.id, workspaceId: row.workspaceId, createdAt: updatedAt };
      if (assigneeUserIds) {
        statements.push(db.delete(conversationAssignees).where(eq(conversationAssignees.conversationId, row.id)));
        const rows = assigneeUserIds.map((userId) => ({ ...owned, userId }));
        statements.push(...rowsPerStatement(rows, 4).map((chunk) => db.insert(conversationAssignees).values(chunk)));
      }
      if (linkedRecordIds) {
        statements.push(
          db
            .delete(conversationRecords)
            .where(and(eq(conversationRecords.conversationId, row.id), eq(conversationRecords.source, "manual"))),
        );
        const rows = linkedRecordIds.map((recordId) => ({ ...owned, recordId, source: "manual" as const }));
        statements.push(...rowsPerStatement(rows, 5).map((chunk) => db.insert(conversationRecords).values(chunk)));
        statements.push(linkedFlagStatement(db, row.id));
      }
      if (tagIds) {
        statements.push(db.delete(conversationTags).where(eq(conversationTags.conversationId, row.id)));
        const rows = tagIds.map((tagId) => ({ ...owned, tagId }));
        statements.push(...rowsPerStatement(rows, 4).map((chunk) => db.insert(conversationTags).values(chunk)));
      }
      const columns = changes.isClosed === undefined ? {} : { isClosed: changes.isClosed };
      await runConditionalBatch(db, conversations, row, columns, updatedAt, statements);
      const [updated] = await db.select().from(conversations).where(eq(conversations.id, row.id));
      return shown(updated as ConversationRow);
    },
  });
}

/** Oldest first by when each message arrived or was sent here (DESIGN.md section 8), never by its Date header. */
const messageOrder: KeysetColumn<MessageRow>[] = creationOrder(messages);

/** The messages of a conversation the actor may see, oldest first. */
export async function listMessagesOf(
  context: ServiceContext,
  conversationId: string,
  { limit, cursor }: QueryOf<typeof operations.listConversationMessages>,
): Promise<{ data: Message[]; pagination: { cursor: string | null; hasMore: boolean } }> {
  const { db, cursorSecret } = context;
  const { row } = await loadConversation(context, conversationId);
  const page = await paginate<MessageRow>(
    {
      scope: `messages:${row.id}`,
      limit,
      cursor,
      order: messageOrder,
      fetch: ({ after, orderBy, limit }) =>
        db
          .select()
          .from(messages)
          .where(and(eq(messages.conversationId, row.id), after))
          .orderBy(...orderBy)
          .limit(limit),
    },
    cursorSecret,
  );
  return { data: await messageResponses(db, page.data), pagination: page.pagination };
}
