import type { operations } from "@crm/contracts";
import { updateFieldOptionOf } from "../../domain/crm/field-options";
import type { OperationHandler } from "../../handler";

export const updateFieldOption: OperationHandler<typeof operations.updateFieldOption> = async (c) => {
  const { fieldDefinitionId, fieldOptionId } = c.req.valid("param");
  return c.json({ option: await updateFieldOptionOf(c.var, fieldDefinitionId, fieldOptionId, c.req.valid("json")) }, 200);
};
