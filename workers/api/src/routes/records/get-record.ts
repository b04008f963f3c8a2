import type { operations } from "@crm/contracts";
import { readRecord } from "../../domain/records/service";
import type { OperationHandler } from "../../handler";

export const getRecord: OperationHandler<typeof operations.getRecord> = async (c) => {
  const { recordId } = c.req.valid("param");
  return c.json({ record: await readRecord(c.var, recordId) }, 200);
};
