import type { operations } from "@crm/contracts";
import { listConversationsOf } from "../../domain/inbox/conversations";
import type { OperationHandler } from "../../handler";

export const listConversations: OperationHandler<typeof operations.listConversations> = async (c) =>
  c.json(await listConversationsOf(c.var, c.req.valid("query")), 200);
