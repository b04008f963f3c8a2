import type { operations } from "@crm/contracts";
import { updateInboxViewOf } from "../../domain/inbox/views";
import type { OperationHandler } from "../../handler";

export const updateInboxView: OperationHandler<typeof operations.updateInboxView> = async (c) =>
  c.json({ view: await updateInboxViewOf(c.var, c.req.valid("param").inboxViewId, c.req.valid("json")) }, 200);
