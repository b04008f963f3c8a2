import type { operations } from "@crm/contracts";
import { listTasksOfRecord } from "../../domain/tasks/service";
import type { OperationHandler } from "../../handler";

export const listRecordTasks: OperationHandler<typeof operations.listRecordTasks> = async (c) => {
  const { recordId } = c.req.valid("param");
  return c.json(await listTasksOfRecord(c.var, recordId, c.req.valid("query")), 200);
};
