import type { operations } from "@crm/contracts";
import { loadRecord } from "../../domain/records/store";
import { deleteRecordOf } from "../../domain/records/write";
import type { OperationHandler } from "../../handler";

export const deleteRecord: OperationHandler<typeof operations.deleteRecord> = async (c) => {
  const { recordId } = c.req.valid("param");
  const record = await loadRecord(c.var.db, c.var.actor, recordId, "member");
  await deleteRecordOf(c.var.db, c.var.actor, record);
  return c.json({ deletedId: recordId }, 200);
};
