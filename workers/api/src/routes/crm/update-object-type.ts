import type { operations } from "@crm/contracts";
import { updateObjectTypeOf } from "../../domain/crm/object-types";
import type { OperationHandler } from "../../handler";

export const updateObjectType: OperationHandler<typeof operations.updateObjectType> = async (c) => {
  const { objectTypeId } = c.req.valid("param");
  return c.json({ object: await updateObjectTypeOf(c.var, objectTypeId, c.req.valid("json")) }, 200);
};
