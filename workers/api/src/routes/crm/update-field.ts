import type { operations } from "@crm/contracts";
import { updateFieldOf } from "../../domain/crm/fields";
import type { OperationHandler } from "../../handler";

export const updateField: OperationHandler<typeof operations.updateField> = async (c) => {
  const { fieldDefinitionId } = c.req.valid("param");
  return c.json({ field: await updateFieldOf(c.var, fieldDefinitionId, c.req.valid("json")) }, 200);
};
