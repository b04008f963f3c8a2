import type { operations } from "@crm/contracts";
import { saveDraft } from "../../domain/inbox/drafts";
import type { OperationHandler } from "../../handler";

export const putConversationDraft: OperationHandler<typeof operations.putConversationDraft> = async (c) =>
  c.json({ draft: await saveDraft(c.var, c.req.valid("param").conversationId, c.req.valid("json")) }, 200);
