import { ApiError } from "@crm/contracts";
import { regional } from "@crm/db";
import { and, eq, inArray } from "drizzle-orm";
import type { Database } from "../../env";

const { conversations, workspaceMembers } = regional;

/** Assignees (or the users a body names under `property`, such as mentions) must be members of the workspace. */
export async function checkAssignees(
  db: Database,
  workspaceId: string,
  userIds: string[],
  property = "assigneeUserIds",
): Promise<void> {
  if (userIds.length === 0) return;
  const found = await db
    .select({ userId: workspaceMembers.userId })
    .from(workspaceMembers)
    .where(and(eq(workspaceMembers.workspaceId, workspaceId), inArray(workspaceMembers.userId, userIds)));
  const members = new Set(found.map((row) => row.userId));
  const problems = userIds.flatMap((id, i) =>
    members.has(id) ? [] : [{ path: `body.${property}.${i}`, message: "Not a member of the workspace" }],
  );
  if (problems.length > 0) throw new ApiError("invalid_request", "The users named must be members of the workspace", problems);
}

/** The conversation a task links to: one of the same workspace, as a linked resource. */
export async function linkedConversation(db: Database, workspaceId: string, conversationId: string) {
  const [conversation] = await db
    .select()
    .from(conversations)
    .where(and(eq(conversations.id, conversationId), eq(conversations.workspaceId, workspaceId)));
  if (!conversation) {
    throw new ApiError("invalid_request", "The conversation is not in this workspace", [
      { path: "body.conversationId", message: "Not a conversation of this workspace" },
    ]);
  }
  return {
    resourceType: "conversation",
    resourceId: conversation.id,
    label: conversation.subject,
    channel: conversation.channel,
  };
}
