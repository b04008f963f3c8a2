import { ApiError, type InboxView, type Problem } from "@crm/contracts";
import type { Database } from "../../database";
import { notMembers } from "../workspace-members";
import { mailboxOf } from "./mailboxes";
import { notTags } from "./tags";

/** What an inbox view names beyond its own row, checked against the workspace. */
export interface ViewReferences {
  config?: InboxView["config"] | undefined;
  visibility: InboxView["visibility"];
  memberUserIds?: string[] | undefined;
}

async function notMailbox(db: Database, workspaceId: string, address: string | undefined): Promise<Problem[]> {
  if (address === undefined) return [];
  return (await mailboxOf(db, workspaceId, address))
    ? []
    : [{ path: "config.filter.mailbox", message: "Not a mailbox of the workspace" }];
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
