import type { operations } from "@crm/contracts";
import { updateTaskOf } from "../../domain/tasks/service";
import type { OperationHandler } from "../../handler";

export const updateTask: OperationHandler<typeof operations.updateTask> = async (c) => {
  const { taskId } = c.req.valid("param");
  return c.json({ task: await updateTaskOf(c.var, taskId, c.req.valid("json")) }, 200);
};
