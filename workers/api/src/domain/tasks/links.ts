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
 * Tasks as one reader may see them. A record-scoped member sees links (and so the subjects in
 * their labels) only to conversations linked to a record, whoever linked them and whenever: the
 * link stays stored, and a reader with the whole inbox still sees it.
 */
export async function tasksSeenBy(db: Database, access: WorkspaceAccess, rows: TaskRow[]): Promise<TaskResponse[]> {
  const responses = rows.map(taskResponse);
  if (access.inboxAccess === "all") return responses;
  const linkedIds = [
    ...new Set(rows.flatMap((row) => row.linkedResources.filter(isConversationLink).map((link) => link.resourceId))),
  ];
  if (linkedIds.length === 0) return responses;
  // One bound parameter for the whole page, however many tasks it holds (D1 binds at most 100).
  const seen = await db
    .select({ id: conversations.id })
    .from(conversations)
    .where(
      and(
        sql`${conversations.id} in (select value from json_each(${JSON.stringify(linkedIds)}))`,
        eq(conversations.hasLinkedRecords, true),
      ),
    );
  const visible = new Set(seen.map((conversation) => conversation.id));
  return responses.map((task) => ({
    ...task,
    linkedResources: task.linkedResources.filter((link) => !isConversationLink(link) || visible.has(link.resourceId)),
  }));
}

export async function taskSeenBy(db: Database, access: WorkspaceAccess, row: TaskRow): Promise<TaskResponse> {
  const [task] = await tasksSeenBy(db, access, [row]);
  return task as TaskResponse;
}

const isConversationLink = (link: TaskRow["linkedResources"][number]) => link.resourceType === "conversation";
