import type { operations } from "@crm/contracts";
import { reorderFieldsOf } from "../../domain/crm/fields";
import type { OperationHandler } from "../../handler";

export const reorderFields: OperationHandler<typeof operations.reorderFields> = async (c) => {
  const { objectTypeId } = c.req.valid("param");
  const { fieldDefinitionIds } = c.req.valid("json");
  await reorderFieldsOf(c.var, objectTypeId, fieldDefinitionIds);
  return c.json({ fieldDefinitionIds }, 200);
};
