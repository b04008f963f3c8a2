import type { operations } from "@crm/contracts";
import { createCommentOn } from "../../domain/inbox/comments";
import type { OperationHandler } from "../../handler";

export const createComment: OperationHandler<typeof operations.createComment> = async (c) =>
  c.json({ comment: await createCommentOn(c.var, c.req.valid("param").conversationId, c.req.valid("json")) }, 201);
