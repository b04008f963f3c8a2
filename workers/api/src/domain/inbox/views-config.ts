import { ApiError, type InboxView } from "@crm/contracts";
import { regional } from "@crm/db";
import { and, eq, inArray } from "drizzle-orm";
import type { Database } from "../../env";
import { notTags } from "./tags";

const { mailboxes, workspaceMembers } = regional;

type Problem = { path: string; message: string };

/** What an inbox view names beyond its own row, checked against the workspace. */
export interface ViewReferences {
  config?: InboxView["config"] | undefined;
  visibility: InboxView["visibility"];
  memberUserIds?: string[] | undefined;
}

async function notMembers(db: Database, workspaceId: string, userIds: string[], path: string): Promise<Problem[]> {
  if (userIds.length === 0) return [];
  const found = await db
    .select({ userId: workspaceMembers.userId })
    .from(workspaceMembers)
    .where(and(eq(workspaceMembers.workspaceId, workspaceId), inArray(workspaceMembers.userId, userIds)));
  const members = new Set(found.map((row) => row.userId));
  return userIds.flatMap((id, i) =>
    members.has(id) ? [] : [{ path: `${path}.${i}`, message: "Not a member of the workspace" }],
  );
}

async function notMailbox(db: Database, workspaceId: string, address: string | undefined): Promise<Problem[]> {
  if (address === undefined) return [];
  const [found] = await db
    .select({ id: mailboxes.id })
    .from(mailboxes)
    .where(and(eq(mailboxes.workspaceId, workspaceId), eq(mailboxes.address, address.toLowerCase())))
    .limit(1);
  return found ? [] : [{ path: "config.filter.mailbox", message: "Not a mailbox of the workspace" }];
}

/**
 * Assignees and listed members must be members of the workspace, the mailbox and tags its own, and
 * only a restricted view lists members: 400 naming every offending path at once.
 */
export async function checkViewReferences(db: Database, workspaceId: string, view: ViewReferences): Promise<void> {
  const misplacedMembers: Problem[] =
    view.memberUserIds?.length && view.visibility !== "restricted"
      ? [{ path: "memberUserIds", message: "Only a restricted view lists members" }]
      : [];
  const problems = (
    await Promise.all([
      notMembers(db, workspaceId, view.config?.filter.assigneeUserIds ?? [], "config.filter.assigneeUserIds"),
      notMailbox(db, workspaceId, view.config?.filter.mailbox),
      notMembers(db, workspaceId, view.memberUserIds ?? [], "memberUserIds"),
      notTags(db, workspaceId, view.config?.filter.tagIds ?? [], "config.filter.tagIds"),
    ])
  ).flat();
  problems.unshift(...misplacedMembers);
  if (problems.length > 0) throw new ApiError("invalid_request", "The view names what is not of the workspace", problems);
}
