import type { operations } from "@crm/contracts";
import { readTask } from "../../domain/tasks/service";
import type { OperationHandler } from "../../handler";

export const getTask: OperationHandler<typeof operations.getTask> = async (c) => {
  const { taskId } = c.req.valid("param");
  return c.json({ task: await readTask(c.var, taskId) }, 200);
};
