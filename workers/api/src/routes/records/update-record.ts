import type { operations } from "@crm/contracts";
import { updateRecordOf } from "../../domain/records/service";
import type { OperationHandler } from "../../handler";

export const updateRecord: OperationHandler<typeof operations.updateRecord> = async (c) => {
  const { recordId } = c.req.valid("param");
  const { fields } = c.req.valid("json");
  return c.json({ record: await updateRecordOf(c.var, recordId, fields) }, 200);
};
