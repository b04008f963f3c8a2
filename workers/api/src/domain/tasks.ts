import { ApiError, type WorkspaceRole } from "@crm/contracts";
import { newId, regional } from "@crm/db";
import { and, eq, inArray, isNull } from "drizzle-orm";
import { runBatch } from "../batch";
import type { AppEnv, Database } from "../env";
import { plainTextOf, sanitizeHtml } from "./content/sanitize";
import { reach } from "./crm/resources";
import { eventStatement } from "./events";

const { tasks, conversations, workspaceMembers } = regional;
type Actor = AppEnv["Variables"]["actor"];
export type TaskRow = typeof tasks.$inferSelect;

export const taskResponse = (row: TaskRow) => ({
  id: row.id,
  workspaceId: row.workspaceId,
  title: row.title,
  status: row.status,
  createdAt: row.createdAt,
  updatedAt: row.updatedAt,
  recordId: row.recordId,
  descriptionHtml: row.descriptionHtml,
  descriptionPlain: row.descriptionPlain,
  dueAt: row.dueAt,
  assigneeUserIds: row.assigneeUserIds,
  linkedResources: row.linkedResources,
  source: row.sourceType && row.sourceId ? { resourceType: row.sourceType, resourceId: row.sourceId } : null,
  createdBy: row.createdBy,
});

/** A live task the actor may reach: unknown, deleted and other organizations' tasks are the same 404. */
export async function loadTask(db: Database, actor: Actor, id: string, role?: WorkspaceRole): Promise<TaskRow> {
  const [task] = await db
    .select()
    .from(tasks)
    .where(and(eq(tasks.id, id), isNull(tasks.deletedAt)))
    .limit(1);
  if (!task) throw new ApiError("not_found", "Task not found");
  await reach(db, actor, task.workspaceId, "Task", role);
  return task;
}

/** Sanitized HTML and its plain text (derived unless given). */
export function description(html: string | undefined, plain: string | undefined) {
  const safe = html === undefined ? "" : sanitizeHtml(html);
  return { html: safe, plain: plain ?? plainTextOf(safe) };
}

/** Assignees must be members of the workspace. */
export async function checkAssignees(db: Database, workspaceId: string, userIds: string[]): Promise<void> {
  if (userIds.length === 0) return;
  const found = await db
    .select({ userId: workspaceMembers.userId })
    .from(workspaceMembers)
    .where(and(eq(workspaceMembers.workspaceId, workspaceId), inArray(workspaceMembers.userId, userIds)));
  const members = new Set(found.map((row) => row.userId));
  const problems = userIds.flatMap((id, i) =>
    members.has(id) ? [] : [{ path: `body.assigneeUserIds.${i}`, message: "Not a member of the workspace" }],
  );
  if (problems.length > 0) throw new ApiError("invalid_request", "Assignees must be members of the workspace", problems);
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

export interface SourceManagedTask {
  workspaceId: string;
  recordId: string;
  title: string;
  descriptionHtml?: string;
  dueAt?: number | null;
  assigneeUserIds?: string[];
  /** The resource that manages the task, e.g. `{ resourceType: "meeting", resourceId: "mtg_…" }`. */
  source: { resourceType: string; resourceId: string };
}

/**
 * How source-managed tasks come to exist: internal code paths (a meeting's action items, for
 * instance) create them here, never a client. Their title, descriptions, due date and status then
 * belong to the source (409 `source_managed_task` on change or delete); assignees stay editable.
 */
export async function createSourceManagedTask(db: Database, input: SourceManagedTask, now = Date.now()) {
  const { html, plain } = description(input.descriptionHtml, undefined);
  const row: TaskRow = {
    id: newId("task", now),
    workspaceId: input.workspaceId,
    recordId: input.recordId,
    title: input.title,
    status: "todo",
    descriptionHtml: html,
    descriptionPlain: plain,
    dueAt: input.dueAt ?? null,
    assigneeUserIds: input.assigneeUserIds ?? [],
    linkedResources: [],
    sourceType: input.source.resourceType,
    sourceId: input.source.resourceId,
    createdBy: `${input.source.resourceType}:${input.source.resourceId}`,
    createdAt: now,
    updatedAt: now,
    deletedAt: null,
  };
  const [workspace] = await db
    .select({ organizationId: regional.workspaces.organizationId })
    .from(regional.workspaces)
    .where(eq(regional.workspaces.id, input.workspaceId));
  if (!workspace) throw new Error(`no workspace ${input.workspaceId}`);
  const source = { organizationId: workspace.organizationId, actor: { type: "system" as const, id: row.createdBy } };
  await runBatch(db, [
    db.insert(tasks).values(row),
    eventStatement(db, source, { type: "task.created", workspaceId: row.workspaceId, data: taskResponse(row) }, now),
  ]);
  return taskResponse(row);
}
