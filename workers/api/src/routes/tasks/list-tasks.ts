import type { operations } from "@crm/contracts";
import { listTasksOfWorkspace } from "../../domain/tasks/service";
import type { OperationHandler } from "../../handler";

export const listTasks: OperationHandler<typeof operations.listTasks> = async (c) =>
  c.json(await listTasksOfWorkspace(c.var, c.req.valid("query")), 200);
