import { ApiError, type operations, type WorkspaceRole } from "@crm/contracts";
import { newId, regional } from "@crm/db";
import { and, eq } from "drizzle-orm";
import { loadInWorkspace } from "../../access";
import { changeWithoutLoss, nextUpdatedAt, runBatchAtVersion, runConditionalBatch } from "../../conditional-write";
import type { ServiceContext } from "../../env";
import type { BodyOf, QueryOf } from "../../inputs";
import { creationOrder, paginate } from "../../pagination";
import { sanitizedContent } from "../content/description";
import { workspaceUsersAmong } from "../workspace-members";
import { loadConversation } from "./conversations";

const { conversationComments, conversations } = regional;
type ConversationRow = typeof conversations.$inferSelect;
type CommentRow = typeof conversationComments.$inferSelect;

/**
 * Internal comments on conversations: stored and shown, never mailed, so nothing here reaches the
 * send path. Whoever may see the conversation sees its comments; its text is indexed for `q` by the
 * triggers of migration 0017.
 */

const commentResponse = (row: CommentRow) => ({
  id: row.id,
  conversationId: row.conversationId,
  workspaceId: row.workspaceId,
  authorId: row.authorId,
  html: row.html,
  text: row.text,
  mentionUserIds: row.mentionUserIds,
  createdAt: row.createdAt,
  updatedAt: row.updatedAt,
});

/**
 * Mentions name exactly the people who can see the conversation: users the workspace's members
 * directory shows (its members, and the organization's admins and owners through their inherited
 * access) whose inbox access reaches it (a record-scoped member only a conversation linked to a
 * record). Anyone else is 400, naming the id.
 */
async function checkMentions(context: ServiceContext, conversation: ConversationRow, userIds: string[]) {
  const people = await workspaceUsersAmong(context, conversation.workspaceId, userIds);
  const seeing = new Set(
    people.filter((person) => person.inboxAccess === "all" || conversation.hasLinkedRecords).map((person) => person.id),
  );
  const refused = userIds.filter((id) => !seeing.has(id));
  if (refused.length === 0) return;
  throw new ApiError(
    "invalid_request",
    `Mentions must name people who can see the conversation; ${refused.join(", ")} cannot`,
    refused.map((id) => ({ path: `body.mentionUserIds.${userIds.indexOf(id)}`, message: `${id} cannot see this conversation` })),
  );
}

/**
 * The columns a body sets: sanitized HTML (empty when only text is given) and its text, derived
 * unless given, when it gives content; the mentions, checked, when it names them.
 */
async function commentColumns(
  context: ServiceContext,
  conversation: ConversationRow,
  input: BodyOf<typeof operations.updateComment>,
) {
  const mentionUserIds = input.mentionUserIds && [...new Set(input.mentionUserIds)];
  await checkMentions(context, conversation, mentionUserIds ?? []);
  const content = input.html === undefined && input.text === undefined ? null : sanitizedContent("html", input.html, input.text);
  return {
    ...(content === null ? {} : { html: content.html, text: content.plain }),
    ...(mentionUserIds === undefined ? {} : { mentionUserIds }),
  };
}

/** A comment, after the checks of its conversation: one a caller may not see does not exist for them. */
async function loadComment(context: ServiceContext, commentId: string, role?: WorkspaceRole) {
  const comment = await loadInWorkspace(context.db, context.actor, conversationComments, commentId, { what: "Comment" });
  try {
    return { comment, ...(await loadConversation(context, comment.conversationId, role)) };
  } catch (error) {
    if (error instanceof ApiError && error.code === "not_found") throw new ApiError("not_found", "Comment not found");
    throw error;
  }
}

/** A comment as its writes answer it, to whoever may see its conversation. */
export const readComment = async (context: ServiceContext, commentId: string) =>
  commentResponse((await loadComment(context, commentId)).comment);

export async function listCommentsOf(
  context: ServiceContext,
  conversationId: string,
  { limit, cursor }: QueryOf<typeof operations.listComments>,
) {
  const { db, cursorSecret } = context;
  const { row } = await loadConversation(context, conversationId);
  const page = await paginate<CommentRow>(
    {
      scope: `comments:${row.id}`,
      limit,
      cursor,
      order: creationOrder(conversationComments),
      fetch: ({ after, orderBy, limit: fetchLimit }) =>
        db
          .select()
          .from(conversationComments)
          .where(and(eq(conversationComments.conversationId, row.id), after))
          .orderBy(...orderBy)
          .limit(fetchLimit),
    },
    cursorSecret,
  );
  return { data: page.data.map(commentResponse), pagination: page.pagination };
}

export async function createCommentOn(
  context: ServiceContext,
  conversationId: string,
  input: BodyOf<typeof operations.createComment>,
) {
  const { db, actor } = context;
  const { row } = await loadConversation(context, conversationId, "member");
  // The body's schema requires text or html, so both columns are set.
  const { html = "", text = "", mentionUserIds = [] } = await commentColumns(context, row, input);
  const now = Date.now();
  const [created] = await db
    .insert(conversationComments)
    .values({
      id: newId("cmt", now),
      workspaceId: row.workspaceId,
      conversationId: row.id,
      authorId: actor.actor.id,
      html,
      text,
      mentionUserIds,
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  return commentResponse(created as CommentRow);
}

/**
 * The author's edit, conditionally (`changeWithoutLoss`): the content, the mentions, or both,
 * whichever the body gives. Only the author's own request ever changes a comment.
 */
export async function updateCommentOf(
  context: ServiceContext,
  commentId: string,
  input: BodyOf<typeof operations.updateComment>,
) {
  const { db, actor } = context;
  return changeWithoutLoss(context, {
    what: "Comment",
    // Content given replaces both of its forms.
    named: [
      ...(input.html === undefined && input.text === undefined ? [] : ["html", "text"]),
      ...(input.mentionUserIds === undefined ? [] : ["mentionUserIds"]),
    ],
    read: async () => {
      const loaded = await loadComment(context, commentId, "member");
      if (loaded.comment.authorId !== actor.actor.id) throw new ApiError("forbidden", "Only the author may edit a comment");
      return loaded;
    },
    shown: ({ comment }) => commentResponse(comment),
    write: async ({ comment, row }) => {
      const columns = await commentColumns(context, row, input);
      const updatedAt = nextUpdatedAt(comment);
      await runConditionalBatch(db, conversationComments, comment, columns, updatedAt);
      return commentResponse({ ...comment, ...columns, updatedAt });
    },
  });
}

/** Its author, or an admin of the workspace, deletes a comment for good (and from the search index). */
export async function deleteCommentOf(context: ServiceContext, commentId: string): Promise<void> {
  const { comment, access } = await loadComment(context, commentId, "member");
  const isAdmin = access.role === "admin" || access.role === "owner";
  if (comment.authorId !== context.actor.actor.id && !isAdmin)
    throw new ApiError("forbidden", "Only the author or an admin may delete a comment");
  await runBatchAtVersion(context, conversationComments, comment.id, [
    context.db.delete(conversationComments).where(eq(conversationComments.id, comment.id)),
  ]);
}
