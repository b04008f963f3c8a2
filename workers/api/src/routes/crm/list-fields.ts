import type { operations } from "@crm/contracts";
import { listFieldsOf } from "../../domain/crm/fields";
import type { OperationHandler } from "../../handler";

export const listFields: OperationHandler<typeof operations.listFields> = async (c) => {
  const { objectTypeId } = c.req.valid("param");
  return c.json(await listFieldsOf(c.var, objectTypeId, c.req.valid("query")), 200);
};
