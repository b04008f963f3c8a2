import type { operations } from "@crm/contracts";
import { updateCommentOf } from "../../domain/inbox/comments";
import type { OperationHandler } from "../../handler";

export const updateComment: OperationHandler<typeof operations.updateComment> = async (c) =>
  c.json({ comment: await updateCommentOf(c.var, c.req.valid("param").commentId, c.req.valid("json")) }, 200);
