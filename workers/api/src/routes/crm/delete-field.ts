import type { operations } from "@crm/contracts";
import { deleteFieldOf } from "../../domain/crm/fields";
import type { OperationHandler } from "../../handler";

export const deleteField: OperationHandler<typeof operations.deleteField> = async (c) => {
  const { fieldDefinitionId } = c.req.valid("param");
  await deleteFieldOf(c.var, fieldDefinitionId);
  return c.json({ deletedId: fieldDefinitionId }, 200);
};
