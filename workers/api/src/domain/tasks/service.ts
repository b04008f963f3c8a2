import { ApiError, type operations, type WorkspaceRole } from "@crm/contracts";
import { newId, regional, runBatch } from "@crm/db";
import { and, eq, isNull, lt, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { loadInWorkspaceWith, reachWorkspace } from "../../access";
import { changeWithoutLoss, nextUpdatedAt, runBatchAtVersion, runConditionalBatch } from "../../conditional-write";
import type { Database } from "../../database";
import type { ServiceContext } from "../../env";
import type { BodyOf, QueryOf } from "../../inputs";
import { creationOrder, paginate } from "../../pagination";
import { sanitizedContent } from "../content/description";
import { changedKeys, eventStatement } from "../events";
import { objectTypeOfRecord } from "../records/object-type-of";
import { checkAssignees, linkedConversation, taskSeenBy, tasksSeenBy } from "./links";
import { shownTask, shownTasks, type TaskResponse, type TaskRow, taskResponse } from "./response";

const { records, tasks, workspaces } = regional;

/** What the source of a source-managed task owns (reference rule 7). */
const sourceOwned = ["title", "descriptionHtml", "descriptionPlain", "dueAt", "status"] as const;

/** A live task the actor may reach, with the actor's access to its workspace (which decides the links they see). */
async function loadTask({ db, actor }: ServiceContext, id: string, role?: WorkspaceRole) {
  const [task, , access] = await loadInWorkspaceWith(db, actor, tasks, id, { what: "Task", role }, async () => {});
  return { task, access };
}

/** The record tasks hang on, with the actor's access to its workspace. */
async function loadRecordOfTasks({ db, actor }: ServiceContext, id: string, role?: WorkspaceRole) {
  const [record, , access] = await loadInWorkspaceWith(db, actor, records, id, { what: "Record", role }, async () => {});
  return { record, access };
}

function refuseSourceManaged(task: TaskRow, message: string): void {
  if (task.sourceType) {
    throw new ApiError("source_managed_task", message, { source: { resourceType: task.sourceType, resourceId: task.sourceId } });
  }
}

export async function createTaskOn(context: ServiceContext, recordId: string, input: BodyOf<typeof operations.createTask>) {
  const { db, actor } = context;
  const { record, access } = await loadRecordOfTasks(context, recordId, "member");
  const assigneeUserIds = [...new Set(input.assigneeUserIds ?? [])];
  await checkAssignees(db, record.workspaceId, assigneeUserIds);
  const linked = input.conversationId ? [await linkedConversation(db, record.workspaceId, access, input.conversationId)] : [];
  const { html, plain } = sanitizedContent("descriptionHtml", input.descriptionHtml, input.descriptionPlain);
  const now = Date.now();
  const row: TaskRow = {
    id: newId("task", now),
    workspaceId: record.workspaceId,
    recordId,
    title: input.title,
    status: input.status ?? "todo",
    descriptionHtml: html,
    descriptionPlain: plain,
    dueAt: input.dueAt ?? null,
    assigneeUserIds,
    linkedResources: linked,
    sourceType: null,
    sourceId: null,
    createdBy: actor.actor.id,
    createdAt: now,
    updatedAt: now,
    deletedAt: null,
  };
  const task = taskResponse(row);
  await runBatch(db, [
    db.insert(tasks).values(row),
    eventStatement(
      db,
      actor,
      { type: "task.created", workspaceId: row.workspaceId, objectTypeId: record.objectTypeId, data: task },
      now,
    ),
  ]);
  return shownTask(context, task);
}

export async function readTask(context: ServiceContext, taskId: string) {
  const { task, access } = await loadTask(context, taskId);
  return shownTask(context, await taskSeenBy(context.db, access, task));
}

/**
 * Changes a task; a source-managed one only in its assignees. Only the named properties are
 * written, conditionally (`changeWithoutLoss`). `task.updated` lists the keys whose value changed.
 */
export async function updateTaskOf(context: ServiceContext, taskId: string, changes: BodyOf<typeof operations.updateTask>) {
  const { db, actor } = context;
  const assigneeUserIds = changes.assigneeUserIds && [...new Set(changes.assigneeUserIds)];
  return changeWithoutLoss(context, {
    what: "Task",
    named: Object.keys(changes),
    read: async () => {
      const loaded = await loadTask(context, taskId, "member");
      if (sourceOwned.some((key) => changes[key] !== undefined)) {
        refuseSourceManaged(loaded.task, "This task is managed by its source: only its assignees can change");
      }
      return loaded;
    },
    shown: ({ task }) => taskResponse(task),
    write: async ({ task, access }) => {
      if (assigneeUserIds) await checkAssignees(db, task.workspaceId, assigneeUserIds);
      const content =
        changes.descriptionHtml !== undefined
          ? sanitizedContent("descriptionHtml", changes.descriptionHtml, changes.descriptionPlain)
          : undefined;
      const columns: Partial<TaskRow> = {
        ...(changes.title === undefined ? {} : { title: changes.title }),
        ...(changes.status === undefined ? {} : { status: changes.status }),
        ...(changes.dueAt === undefined ? {} : { dueAt: changes.dueAt }),
        ...(content ? { descriptionHtml: content.html, descriptionPlain: content.plain } : {}),
        ...(!content && changes.descriptionPlain !== undefined ? { descriptionPlain: changes.descriptionPlain } : {}),
        ...(assigneeUserIds ? { assigneeUserIds } : {}),
      };
      const updatedAt = nextUpdatedAt(task);
      const response = taskResponse({ ...task, ...columns, updatedAt });
      const changedFields = changedKeys(changes, taskResponse(task), response);
      const event = eventStatement(
        db,
        actor,
        {
          type: "task.updated",
          workspaceId: task.workspaceId,
          objectTypeId: await objectTypeOfRecord(db, task.recordId),
          data: { ...response, changedFields },
        },
        updatedAt,
      );
      await runConditionalBatch(db, tasks, task, columns, updatedAt, [event]);
      return shownTask(context, await taskSeenBy(db, access, { ...task, ...columns, updatedAt }));
    },
  });
}

/**
 * Soft delete: the task leaves every list and read for good (no restore route exists). Under
 * `If-Match` the batch applies only at the version named, so a change that lands meanwhile makes it 412.
 */
export async function deleteTaskOf(context: ServiceContext, taskId: string): Promise<void> {
  const { db, actor } = context;
  const { task } = await loadTask(context, taskId, "member");
  refuseSourceManaged(task, "This task is managed by its source and cannot be deleted");
  const now = Date.now();
  await runBatchAtVersion(context, tasks, taskId, [
    db.update(tasks).set({ deletedAt: now, updatedAt: now }).where(eq(tasks.id, taskId)),
    eventStatement(
      db,
      actor,
      {
        type: "task.deleted",
        workspaceId: task.workspaceId,
        objectTypeId: await objectTypeOfRecord(db, task.recordId),
        data: { id: task.id, recordId: task.recordId, workspaceId: task.workspaceId },
      },
      now,
    ),
  ]);
}

/** The live tasks of one record, oldest first. */
export async function listTasksOfRecord(
  context: ServiceContext,
  recordId: string,
  { limit, cursor, status }: QueryOf<typeof operations.listRecordTasks>,
) {
  const { db, cursorSecret } = context;
  const { access } = await loadRecordOfTasks(context, recordId);
  const page = await paginate<TaskRow>(
    {
      scope: `tasks:${recordId}:${status ?? ""}`,
      limit,
      cursor,
      order: creationOrder(tasks),
      fetch: ({ after, orderBy, limit }) =>
        db
          .select()
          .from(tasks)
          .where(and(eq(tasks.recordId, recordId), isNull(tasks.deletedAt), status ? eq(tasks.status, status) : undefined, after))
          .orderBy(...orderBy)
          .limit(limit),
    },
    cursorSecret,
  );
  return { data: await shownTasks(context, await tasksSeenBy(db, access, page.data)), pagination: page.pagination };
}

/** The live tasks of a workspace, by assignee, status and due date. */
export async function listTasksOfWorkspace(context: ServiceContext, query: QueryOf<typeof operations.listTasks>) {
  const { db, actor, cursorSecret } = context;
  const { workspaceId, assigneeUserId, status, dueBeforeMs, limit, cursor } = query;
  const access = await reachWorkspace(db, actor, workspaceId, { what: "Workspace" });
  const page = await paginate<TaskRow>(
    {
      scope: `tasks:${workspaceId}:${assigneeUserId ?? ""}:${status ?? ""}:${dueBeforeMs ?? ""}`,
      limit,
      cursor,
      order: creationOrder(tasks),
      fetch: ({ after, orderBy, limit }) =>
        db
          .select()
          .from(tasks)
          .where(
            and(
              eq(tasks.workspaceId, workspaceId),
              isNull(tasks.deletedAt),
              status ? eq(tasks.status, status) : undefined,
              dueBeforeMs === undefined ? undefined : lt(tasks.dueAt, dueBeforeMs),
              // Assignees are a JSON list; json_each finds the task when the user is one of them.
              assigneeUserId
                ? sql`exists (select 1 from json_each(${tasks.assigneeUserIds}) where value = ${assigneeUserId})`
                : undefined,
              after,
            ),
          )
          .orderBy(...orderBy)
          .limit(limit),
    },
    cursorSecret,
  );
  return { data: await shownTasks(context, await tasksSeenBy(db, access, page.data)), pagination: page.pagination };
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

/** A source-managed task's link to its source, shown in `linkedResources` (a meeting with its title, say). */
export interface SourceLink {
  label: string;
  channel: string;
}

/**
 * How source-managed tasks come to exist: internal code paths (a meeting's action items, for
 * instance) create them here, never a client. Their title, descriptions, due date and status then
 * belong to the source (409 `source_managed_task` on change or delete); assignees stay editable.
 * The statements (task and `task.created` event) run in the caller's batch, beside the source's change.
 */
export function sourceManagedTaskStatements(
  db: Database,
  input: SourceManagedTask & { link?: SourceLink; organizationId: string; objectTypeId: string | null },
  now = Date.now(),
): { task: TaskResponse; statements: BatchItem<"sqlite">[] } {
  const { html, plain } = sanitizedContent("descriptionHtml", input.descriptionHtml, undefined);
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
    linkedResources: input.link
      ? [{ resourceType: input.source.resourceType, resourceId: input.source.resourceId, ...input.link }]
      : [],
    sourceType: input.source.resourceType,
    sourceId: input.source.resourceId,
    createdBy: `${input.source.resourceType}:${input.source.resourceId}`,
    createdAt: now,
    updatedAt: now,
    deletedAt: null,
  };
  const source = { organizationId: input.organizationId, actor: { type: "system" as const, id: row.createdBy } };
  const task = taskResponse(row);
  const event = eventStatement(
    db,
    source,
    { type: "task.created", workspaceId: row.workspaceId, objectTypeId: input.objectTypeId, data: task },
    now,
  );
  return { task, statements: [db.insert(tasks).values(row), event] };
}

/** A source-managed task created on its own (the demo seed's). */
export async function createSourceManagedTask(db: Database, input: SourceManagedTask, now = Date.now()) {
  const [workspace] = await db
    .select({ organizationId: workspaces.organizationId })
    .from(workspaces)
    .where(eq(workspaces.id, input.workspaceId));
  if (!workspace) throw new Error(`no workspace ${input.workspaceId}`);
  const objectTypeId = await objectTypeOfRecord(db, input.recordId);
  const { task, statements } = sourceManagedTaskStatements(
    db,
    { ...input, organizationId: workspace.organizationId, objectTypeId },
    now,
  );
  await runBatch(db, statements);
  return task;
}
