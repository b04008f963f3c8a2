import type { operations } from "@crm/contracts";
import { createFieldOn } from "../../domain/crm/field-creation";
import type { OperationHandler } from "../../handler";

export const createField: OperationHandler<typeof operations.createField> = async (c) => {
  const { objectTypeId } = c.req.valid("param");
  return c.json({ field: await createFieldOn(c.var, objectTypeId, c.req.valid("json")) }, 201);
};
