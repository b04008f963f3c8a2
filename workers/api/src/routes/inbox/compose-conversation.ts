import type { operations } from "@crm/contracts";
import { composeConversationOf, outboxOf, retriedSendKey } from "../../domain/inbox/mail/send";
import type { OperationHandler } from "../../handler";

export const composeConversation: OperationHandler<typeof operations.composeConversation> = async (c) => {
  const sendKey = retriedSendKey(c.var, c.req.header("idempotency-key"));
  return c.json(await composeConversationOf(c.var, outboxOf(c.env), c.req.valid("json"), sendKey), 201);
};
