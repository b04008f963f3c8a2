import type { operations } from "@crm/contracts";
import { listRecordsOf } from "../../domain/records/service";
import type { OperationHandler } from "../../handler";

export const listRecords: OperationHandler<typeof operations.listRecords> = async (c) =>
  c.json(await listRecordsOf(c.var, c.req.valid("query")), 200);
