import type { operations } from "@crm/contracts";
import { createFieldOptionOn } from "../../domain/crm/field-options";
import type { OperationHandler } from "../../handler";

export const createFieldOption: OperationHandler<typeof operations.createFieldOption> = async (c) => {
  const { fieldDefinitionId } = c.req.valid("param");
  return c.json({ option: await createFieldOptionOn(c.var, fieldDefinitionId, c.req.valid("json")) }, 201);
};
