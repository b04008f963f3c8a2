import type { operations } from "@crm/contracts";
import { deleteViewOf } from "../../domain/crm/views";
import type { OperationHandler } from "../../handler";

export const deleteView: OperationHandler<typeof operations.deleteView> = async (c) => {
  const { viewId } = c.req.valid("param");
  await deleteViewOf(c.var, viewId);
  return c.json({ deletedId: viewId }, 200);
};
