import type { operations } from "@crm/contracts";
import { deleteObjectTypeOf } from "../../domain/crm/object-types";
import type { OperationHandler } from "../../handler";

export const deleteObjectType: OperationHandler<typeof operations.deleteObjectType> = async (c) => {
  const { objectTypeId } = c.req.valid("param");
  await deleteObjectTypeOf(c.var, objectTypeId);
  return c.json({ deletedId: objectTypeId }, 200);
};
