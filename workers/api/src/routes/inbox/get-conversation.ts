import type { operations } from "@crm/contracts";
import { readConversation } from "../../domain/inbox/conversations";
import type { OperationHandler } from "../../handler";

export const getConversation: OperationHandler<typeof operations.getConversation> = async (c) =>
  c.json({ conversation: await readConversation(c.var, c.req.valid("param").conversationId) }, 200);
