import type { operations } from "@crm/contracts";
import { readDraft } from "../../domain/inbox/drafts";
import type { OperationHandler } from "../../handler";

export const getConversationDraft: OperationHandler<typeof operations.getConversationDraft> = async (c) =>
  c.json({ draft: await readDraft(c.var, c.req.valid("param").conversationId) }, 200);
