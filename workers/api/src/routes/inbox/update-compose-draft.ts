import type { operations } from "@crm/contracts";
import { updateComposeDraftOf } from "../../domain/inbox/compose-drafts";
import type { OperationHandler } from "../../handler";

export const updateComposeDraft: OperationHandler<typeof operations.updateComposeDraft> = async (c) =>
  c.json({ draft: await updateComposeDraftOf(c.var, c.req.valid("param").draftId, c.req.valid("json")) }, 200);
