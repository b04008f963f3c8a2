import type { operations } from "@crm/contracts";
import { loadRecord } from "../../domain/records/store";
import { updateRecordOf } from "../../domain/records/write";
import type { OperationHandler } from "../../handler";

export const updateRecord: OperationHandler<typeof operations.updateRecord> = async (c) => {
  const { recordId } = c.req.valid("param");
  const { fields } = c.req.valid("json");
  const record = await loadRecord(c.var.db, c.var.actor, recordId, "member");
  return c.json({ record: await updateRecordOf(c.var.db, c.var.actor, record, fields) }, 200);
};
