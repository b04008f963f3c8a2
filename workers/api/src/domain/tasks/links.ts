import { ApiError } from "@crm/contracts";
import { regional } from "@crm/db";
import { and, eq, sql } from "drizzle-orm";
import type { WorkspaceAccess } from "../../access";
import type { Database } from "../../database";
import { notMembers } from "../workspace-members";
import { type TaskResponse, type TaskRow, taskResponse } from "./response";

const { conversations } = regional;

/** Assignees (or the users a body names under `property`, such as mentions) must be members of the workspace. */
export async function checkAssignees(
  db: Database,
  workspaceId: string,
  userIds: string[],
  property = "assigneeUserIds",
): Promise<void> {
  const problems = await notMembers(db, workspaceId, userIds, property);
  if (problems.length > 0) throw new ApiError("invalid_request", "The users named must be members of the workspace", problems);
}

/**
 * The conversation a task links to, as a linked resource: one of the record's workspace that the
 * actor may see. For a record-scoped member (reference rule 8) a conversation linked to no record
 * does not exist, so it is the same 404 as an unknown id or another workspace's: linking can tell
 * nobody which conversations exist.
 */
export async function linkedConversation(db: Database, workspaceId: string, access: WorkspaceAccess, conversationId: string) {
  const [conversation] = await db
    .select()
    .from(conversations)
    .where(and(eq(conversations.id, conversationId), eq(conversations.workspaceId, workspaceId)));
  if (!conversation || (access.inboxAccess !== "all" && !conversation.hasLinkedRecords)) {
    throw new ApiError("not_found", "Conversation not found", [
      { path: "conversationId", message: "No conversation of this workspace that you can see has this id" },
    ]);
  }
  return {
    resourceType: "conversation",
    resourceId: conversation.id,
    label: conversation.subject,
    channel: conversation.channel,
  };
}

/**
 * Which of these conversations one reader may see: every one with the whole inbox; for a
 * record-scoped member (reference rule 8) only those linked to a record now, whoever linked them
 * to what and whenever. One bound parameter however many ids (D1 binds at most 100).
 */
export async function conversationsSeenBy(
  db: Database,
  access: WorkspaceAccess,
  conversationIds: string[],
): Promise<(conversationId: string) => boolean> {
  if (access.inboxAccess === "all") return () => true;
  const ids = [...new Set(conversationIds)];
  const seen =
    ids.length === 0
      ? []
      : await db
          .select({ id: conversations.id })
          .from(conversations)
          .where(
            and(
              sql`${conversations.id} in (select value from json_each(${JSON.stringify(ids)}))`,
              eq(conversations.hasLinkedRecords, true),
            ),
          );
  const visible = new Set(seen.map((conversation) => conversation.id));
  return (conversationId) => visible.has(conversationId);
}

type Link = TaskRow["linkedResources"][number];

/** The conversations a task's links name. */
export const linkedConversationIds = (links: Link[]) => links.filter(isConversationLink).map((link) => link.resourceId);

/** A task's links as a reader sees them: a link to a conversation only when `seen` says they see it. */
export const linksSeen = (links: Link[], seen: (conversationId: string) => boolean) =>
  links.filter((link) => !isConversationLink(link) || seen(link.resourceId));

/**
 * Tasks as one reader may see them. A record-scoped member sees links (and so the subjects in
 * their labels) only to conversations they see: the link stays stored, and a reader with the
 * whole inbox still sees it.
 */
export async function tasksSeenBy(db: Database, access: WorkspaceAccess, rows: TaskRow[]): Promise<TaskResponse[]> {
  const responses = rows.map(taskResponse);
  const seen = await conversationsSeenBy(
    db,
    access,
    responses.flatMap((task) => linkedConversationIds(task.linkedResources)),
  );
  return responses.map((task) => ({ ...task, linkedResources: linksSeen(task.linkedResources, seen) }));
}

export async function taskSeenBy(db: Database, access: WorkspaceAccess, row: TaskRow): Promise<TaskResponse> {
  const [task] = await tasksSeenBy(db, access, [row]);
  return task as TaskResponse;
}

const isConversationLink = (link: Link) => link.resourceType === "conversation";
