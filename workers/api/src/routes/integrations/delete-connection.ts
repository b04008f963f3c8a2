import type { operations } from "@crm/contracts";
import { deleteConnectionOf } from "../../domain/meetings/connections";
import type { OperationHandler } from "../../handler";

export const deleteConnection: OperationHandler<typeof operations.deleteConnection> = async (c) => {
  const { connectionId } = c.req.valid("param");
  await deleteConnectionOf(c.var, connectionId);
  return c.json({ deletedId: connectionId }, 200);
};
