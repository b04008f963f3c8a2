import type { operations } from "@crm/contracts";
import { deleteTaskOf } from "../../domain/tasks/service";
import type { OperationHandler } from "../../handler";

export const deleteTask: OperationHandler<typeof operations.deleteTask> = async (c) => {
  const { taskId } = c.req.valid("param");
  await deleteTaskOf(c.var, taskId);
  return c.json({ deletedId: taskId }, 200);
};
