import type { operations } from "@crm/contracts";
import { listMessagesOf } from "../../domain/inbox/conversations";
import type { OperationHandler } from "../../handler";

export const listConversationMessages: OperationHandler<typeof operations.listConversationMessages> = async (c) =>
  c.json(await listMessagesOf(c.var, c.req.valid("param").conversationId, c.req.valid("query")), 200);
