import type { operations } from "@crm/contracts";
import { listCommentsOf } from "../../domain/inbox/comments";
import type { OperationHandler } from "../../handler";

export const listComments: OperationHandler<typeof operations.listComments> = async (c) =>
  c.json(await listCommentsOf(c.var, c.req.valid("param").conversationId, c.req.valid("query")), 200);
