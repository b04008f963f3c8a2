import type { operations } from "@crm/contracts";
import { readComposeDraft } from "../../domain/inbox/compose-drafts";
import type { OperationHandler } from "../../handler";

export const getComposeDraft: OperationHandler<typeof operations.getComposeDraft> = async (c) =>
  c.json({ draft: await readComposeDraft(c.var, c.req.valid("param").draftId) }, 200);
