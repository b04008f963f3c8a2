import type { operations } from "@crm/contracts";
import { outboxOf, replyInConversation } from "../../domain/inbox/mail/send";
import type { OperationHandler } from "../../handler";

export const sendMessage: OperationHandler<typeof operations.sendMessage> = async (c) =>
  c.json(await replyInConversation(c.var, outboxOf(c.env), c.req.valid("param").conversationId, c.req.valid("json")), 201);
