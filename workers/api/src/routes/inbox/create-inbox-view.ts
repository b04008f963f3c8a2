import type { operations } from "@crm/contracts";
import { createInboxViewIn } from "../../domain/inbox/views";
import type { OperationHandler } from "../../handler";

export const createInboxView: OperationHandler<typeof operations.createInboxView> = async (c) =>
  c.json({ view: await createInboxViewIn(c.var, c.req.valid("json")) }, 201);
