import type { operations } from "@crm/contracts";
import { queryRecordsOf } from "../../domain/records/service";
import type { OperationHandler } from "../../handler";

export const queryRecords: OperationHandler<typeof operations.queryRecords> = async (c) =>
  c.json(await queryRecordsOf(c.var, c.req.valid("json")), 200);
