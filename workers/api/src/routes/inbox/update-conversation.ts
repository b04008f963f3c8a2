import type { operations } from "@crm/contracts";
import { updateConversationOf } from "../../domain/inbox/conversations";
import type { OperationHandler } from "../../handler";

export const updateConversation: OperationHandler<typeof operations.updateConversation> = async (c) => {
  const { conversationId } = c.req.valid("param");
  return c.json({ conversation: await updateConversationOf(c.var, conversationId, c.req.valid("json")) }, 200);
};
