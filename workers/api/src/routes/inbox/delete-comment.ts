import type { operations } from "@crm/contracts";
import { deleteCommentOf } from "../../domain/inbox/comments";
import type { OperationHandler } from "../../handler";

export const deleteComment: OperationHandler<typeof operations.deleteComment> = async (c) => {
  const { commentId } = c.req.valid("param");
  await deleteCommentOf(c.var, commentId);
  return c.json({ deletedId: commentId }, 200);
};
