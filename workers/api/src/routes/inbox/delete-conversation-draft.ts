import type { operations } from "@crm/contracts";
import { discardDraft } from "../../domain/inbox/drafts";
import type { OperationHandler } from "../../handler";

export const deleteConversationDraft: OperationHandler<typeof operations.deleteConversationDraft> = async (c) => {
  const { conversationId } = c.req.valid("param");
  await discardDraft(c.var, conversationId);
  return c.json({ deletedId: conversationId }, 200);
};
