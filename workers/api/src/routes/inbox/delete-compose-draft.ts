import type { operations } from "@crm/contracts";
import { deleteComposeDraftOf } from "../../domain/inbox/compose-drafts";
import type { OperationHandler } from "../../handler";

export const deleteComposeDraft: OperationHandler<typeof operations.deleteComposeDraft> = async (c) => {
  const { draftId } = c.req.valid("param");
  await deleteComposeDraftOf(c.var, draftId);
  return c.json({ deletedId: draftId }, 200);
};
