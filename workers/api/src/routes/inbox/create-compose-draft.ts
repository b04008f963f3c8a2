import type { operations } from "@crm/contracts";
import { createComposeDraftIn } from "../../domain/inbox/compose-drafts";
import type { OperationHandler } from "../../handler";

export const createComposeDraft: OperationHandler<typeof operations.createComposeDraft> = async (c) =>
  c.json({ draft: await createComposeDraftIn(c.var, c.req.valid("json")) }, 201);
