import type { operations } from "@crm/contracts";
import { deleteInboxViewOf } from "../../domain/inbox/views";
import type { OperationHandler } from "../../handler";

export const deleteInboxView: OperationHandler<typeof operations.deleteInboxView> = async (c) => {
  const { inboxViewId } = c.req.valid("param");
  await deleteInboxViewOf(c.var, inboxViewId);
  return c.json({ deletedId: inboxViewId }, 200);
};
