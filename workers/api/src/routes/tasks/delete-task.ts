import { ApiError, type operations } from "@crm/contracts";
import { regional } from "@crm/db";
import { eq } from "drizzle-orm";
import { runBatch } from "../../batch";
import { eventStatement } from "../../domain/events";
import { loadTask } from "../../domain/tasks";
import type { OperationHandler } from "../../handler";

/** Soft delete: the task leaves every list and read for good (no restore route exists). */
export const deleteTask: OperationHandler<typeof operations.deleteTask> = async (c) => {
  const { taskId } = c.req.valid("param");
  const { db, actor } = c.var;
  const task = await loadTask(db, actor, taskId, "member");
  if (task.sourceType) {
    throw new ApiError("source_managed_task", "This task is managed by its source and cannot be deleted", {
      source: { resourceType: task.sourceType, resourceId: task.sourceId },
    });
  }
  const now = Date.now();
  await runBatch(db, [
    db.update(regional.tasks).set({ deletedAt: now, updatedAt: now }).where(eq(regional.tasks.id, taskId)),
    eventStatement(
      db,
      actor,
      {
        type: "task.deleted",
        workspaceId: task.workspaceId,
        data: { id: task.id, recordId: task.recordId, workspaceId: task.workspaceId },
      },
      now,
    ),
  ]);
  return c.json({ deletedId: taskId }, 200);
};
