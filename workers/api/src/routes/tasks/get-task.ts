import type { operations } from "@crm/contracts";
import { loadTask, taskResponse } from "../../domain/tasks";
import type { OperationHandler } from "../../handler";

export const getTask: OperationHandler<typeof operations.getTask> = async (c) => {
  const { taskId } = c.req.valid("param");
  return c.json({ task: taskResponse(await loadTask(c.var.db, c.var.actor, taskId)) }, 200);
};
