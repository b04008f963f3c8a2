import { ApiError, type operations } from "@crm/contracts";
import { regional } from "@crm/db";
import { eq } from "drizzle-orm";
import { runBatch } from "../../batch";
import { eventStatement } from "../../domain/events";
import { checkAssignees, description, loadTask, type TaskRow, taskResponse } from "../../domain/tasks";
import type { OperationHandler } from "../../handler";

/** What the source of a source-managed task owns (reference rule 7). */
const sourceOwned = ["title", "descriptionHtml", "descriptionPlain", "dueAt", "status"] as const;

export const updateTask: OperationHandler<typeof operations.updateTask> = async (c) => {
  const { taskId } = c.req.valid("param");
  const changes = c.req.valid("json");
  const { db, actor } = c.var;
  const task = await loadTask(db, actor, taskId, "member");
  if (task.sourceType && sourceOwned.some((key) => changes[key] !== undefined)) {
    throw new ApiError("source_managed_task", "This task is managed by its source: only its assignees can change", {
      source: { resourceType: task.sourceType, resourceId: task.sourceId },
    });
  }
  const assigneeUserIds = changes.assigneeUserIds ? [...new Set(changes.assigneeUserIds)] : task.assigneeUserIds;
  if (changes.assigneeUserIds) await checkAssignees(db, task.workspaceId, assigneeUserIds);
  const content =
    changes.descriptionHtml !== undefined
      ? description(changes.descriptionHtml, changes.descriptionPlain)
      : { html: task.descriptionHtml, plain: changes.descriptionPlain ?? task.descriptionPlain };
  const now = Date.now();
  const updated: TaskRow = {
    ...task,
    title: changes.title ?? task.title,
    status: changes.status ?? task.status,
    dueAt: changes.dueAt === undefined ? task.dueAt : changes.dueAt,
    descriptionHtml: content.html,
    descriptionPlain: content.plain,
    assigneeUserIds,
    updatedAt: now,
  };
  const response = taskResponse(updated);
  const changedFields = Object.keys(changes).filter(
    (key) =>
      JSON.stringify(response[key as keyof typeof response]) !== JSON.stringify(taskResponse(task)[key as keyof typeof response]),
  );
  await runBatch(db, [
    db.update(regional.tasks).set(updated).where(eq(regional.tasks.id, taskId)),
    eventStatement(db, actor, { type: "task.updated", workspaceId: task.workspaceId, data: { ...response, changedFields } }, now),
  ]);
  return c.json({ task: response }, 200);
};
