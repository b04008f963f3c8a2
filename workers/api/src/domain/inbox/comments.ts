import { ApiError, type operations } from "@crm/contracts";
import { newId, regional } from "@crm/db";
import { and, eq } from "drizzle-orm";
import { loadInWorkspace } from "../../access";
import type { ServiceContext } from "../../env";
import type { BodyOf, QueryOf } from "../../inputs";
import { creationOrder, paginate } from "../../pagination";
import { sanitizedContent } from "../content/description";
import { checkAssignees } from "../tasks/links";
import { loadConversation } from "./conversations";

const { conversationComments } = regional;
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

/** Sanitized HTML (empty when only text is given) and its text, derived unless given; mentions checked. */
async function commentContent(context: ServiceContext, workspaceId: string, input: BodyOf<typeof operations.createComment>) {
  const { html, plain } = sanitizedContent("html", input.html, input.text);
  const mentionUserIds = input.mentionUserIds && [...new Set(input.mentionUserIds)];
  await checkAssignees(context.db, workspaceId, mentionUserIds ?? [], "mentionUserIds");
  return { html, text: plain, mentionUserIds };
}

/** A comment, after the checks of its conversation: one a caller may not see does not exist for them. */
async function loadComment(context: ServiceContext, commentId: string) {
  const comment = await loadInWorkspace(context.db, context.actor, conversationComments, commentId, { what: "Comment" });
  try {
    return { comment, ...(await loadConversation(context, comment.conversationId, "member")) };
  } catch (error) {
    if (error instanceof ApiError && error.code === "not_found") throw new ApiError("not_found", "Comment not found");
    throw error;
  }
}

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
  const content = await commentContent(context, row.workspaceId, input);
  const now = Date.now();
  const [created] = await db
    .insert(conversationComments)
    .values({
      id: newId("cmt", now),
      workspaceId: row.workspaceId,
      conversationId: row.id,
      authorId: actor.actor.id,
      html: content.html,
      text: content.text,
      mentionUserIds: content.mentionUserIds ?? [],
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  return commentResponse(created as CommentRow);
}

/**
 * The author's edit: the content and, when given, the mentions, in one statement conditional on the
 * author, so that no one else's request ever changes a comment.
 */
export async function updateCommentOf(
  context: ServiceContext,
  commentId: string,
  input: BodyOf<typeof operations.updateComment>,
) {
  const { db, actor } = context;
  const { comment } = await loadComment(context, commentId);
  if (comment.authorId !== actor.actor.id) throw new ApiError("forbidden", "Only the author may edit a comment");
  const content = await commentContent(context, comment.workspaceId, input);
  const [updated] = await db
    .update(conversationComments)
    .set({
      html: content.html,
      text: content.text,
      ...(content.mentionUserIds === undefined ? {} : { mentionUserIds: content.mentionUserIds }),
      updatedAt: Date.now(),
    })
    .where(and(eq(conversationComments.id, comment.id), eq(conversationComments.authorId, actor.actor.id)))
    .returning();
  if (!updated) throw new ApiError("not_found", "Comment not found");
  return commentResponse(updated);
}

/** Its author, or an admin of the workspace, deletes a comment for good (and from the search index). */
export async function deleteCommentOf(context: ServiceContext, commentId: string): Promise<void> {
  const { comment, access } = await loadComment(context, commentId);
  const isAdmin = access.role === "admin" || access.role === "owner";
  if (comment.authorId !== context.actor.actor.id && !isAdmin)
    throw new ApiError("forbidden", "Only the author or an admin may delete a comment");
  await context.db.delete(conversationComments).where(eq(conversationComments.id, comment.id));
}
