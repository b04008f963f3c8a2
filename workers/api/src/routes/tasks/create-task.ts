import type { operations } from "@crm/contracts";
import { createTaskOn } from "../../domain/tasks/service";
import type { OperationHandler } from "../../handler";

export const createTask: OperationHandler<typeof operations.createTask> = async (c) => {
  const { recordId } = c.req.valid("param");
  return c.json({ task: await createTaskOn(c.var, recordId, c.req.valid("json")) }, 201);
};
