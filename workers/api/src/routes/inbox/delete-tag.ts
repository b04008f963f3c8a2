import type { operations } from "@crm/contracts";
import { deleteTagOf } from "../../domain/inbox/tags";
import type { OperationHandler } from "../../handler";

export const deleteTag: OperationHandler<typeof operations.deleteTag> = async (c) => {
  const { tagId } = c.req.valid("param");
  await deleteTagOf(c.var, tagId);
  return c.json({ deletedId: tagId }, 200);
};
