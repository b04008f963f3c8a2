import type { operations } from "@crm/contracts";
import { deleteRecordOf } from "../../domain/records/service";
import type { OperationHandler } from "../../handler";

export const deleteRecord: OperationHandler<typeof operations.deleteRecord> = async (c) => {
  const { recordId } = c.req.valid("param");
  await deleteRecordOf(c.var, recordId);
  return c.json({ deletedId: recordId }, 200);
};
