import type { operations } from "@crm/contracts";
import { createRecordIn } from "../../domain/records/service";
import type { OperationHandler } from "../../handler";

export const createRecord: OperationHandler<typeof operations.createRecord> = async (c) => {
  const { objectTypeId, fields } = c.req.valid("json");
  return c.json({ record: await createRecordIn(c.var, objectTypeId, fields) }, 201);
};
