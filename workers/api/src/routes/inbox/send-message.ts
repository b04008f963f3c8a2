import type { operations } from "@crm/contracts";
import { outboxOf, replyInConversation, retriedSendKey } from "../../domain/inbox/mail/send";
import type { OperationHandler } from "../../handler";

export const sendMessage: OperationHandler<typeof operations.sendMessage> = async (c) => {
  const sendKey = retriedSendKey(c.var, c.req.header("idempotency-key"));
  const { conversationId } = c.req.valid("param");
  return c.json(await replyInConversation(c.var, outboxOf(c.env), conversationId, c.req.valid("json"), sendKey), 201);
};
