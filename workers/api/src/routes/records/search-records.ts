import type { operations } from "@crm/contracts";
import { searchRecordsIn } from "../../domain/records/search";
import type { OperationHandler } from "../../handler";

export const searchRecords: OperationHandler<typeof operations.searchRecords> = async (c) =>
  c.json(await searchRecordsIn(c.var, c.req.valid("query")), 200);
