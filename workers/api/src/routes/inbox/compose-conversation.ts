import type { operations } from "@crm/contracts";
import { composeConversationOf, outboxOf } from "../../domain/inbox/mail/send";
import type { OperationHandler } from "../../handler";

export const composeConversation: OperationHandler<typeof operations.composeConversation> = async (c) =>
  c.json(await composeConversationOf(c.var, outboxOf(c.env), c.req.valid("json")), 201);
