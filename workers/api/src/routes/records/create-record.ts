import type { operations } from "@crm/contracts";
import { loadObjectType } from "../../domain/crm/resources";
import { createRecordOf } from "../../domain/records/write";
import type { OperationHandler } from "../../handler";

export const createRecord: OperationHandler<typeof operations.createRecord> = async (c) => {
  const { objectTypeId, fields } = c.req.valid("json");
  const objectType = await loadObjectType(c.var.db, c.var.actor, objectTypeId, "member");
  return c.json({ record: await createRecordOf(c.var.db, c.var.actor, objectType, fields) }, 201);
};
