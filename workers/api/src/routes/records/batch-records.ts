import { chargedUnitsHeader, operations } from "@crm/contracts";
import { batchRecordsIn } from "../../domain/records/batch";
import type { OperationHandler } from "../../handler";

/** One result per item; the gateway charges the records written, reported in `chargedUnitsHeader`. */
export const batchRecords: OperationHandler<typeof operations.batchRecords> = async (c) => {
  const { results, written } = await batchRecordsIn(c.var, c.req.valid("json"));
  c.header(chargedUnitsHeader, String(written * operations.batchRecords.costUnits));
  return c.json({ results }, 200);
};
