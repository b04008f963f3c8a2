import type { operations } from "@crm/contracts";
import { listConversationsOfRecord } from "../../domain/inbox/conversations";
import type { OperationHandler } from "../../handler";

export const listRecordConversations: OperationHandler<typeof operations.listRecordConversations> = async (c) =>
  c.json(await listConversationsOfRecord(c.var, c.req.valid("param").recordId, c.req.valid("query")), 200);
