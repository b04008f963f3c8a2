import type { operations } from "@crm/contracts";
import { loadRecord, type RecordResponse, recordFields, recordResponses } from "../../domain/records/store";
import type { OperationHandler } from "../../handler";

export const getRecord: OperationHandler<typeof operations.getRecord> = async (c) => {
  const { recordId } = c.req.valid("param");
  const record = await loadRecord(c.var.db, c.var.actor, recordId);
  const [response] = await recordResponses(c.var.db, await recordFields(c.var.db, record.objectTypeId), [record]);
  return c.json({ record: response as RecordResponse }, 200);
};
