import type { operations } from "@crm/contracts";
import { sendComposeDraftOf } from "../../domain/inbox/compose-drafts";
import { outboxOf } from "../../domain/inbox/mail/send";
import type { OperationHandler } from "../../handler";

export const sendComposeDraft: OperationHandler<typeof operations.sendComposeDraft> = async (c) =>
  c.json(await sendComposeDraftOf(c.var, outboxOf(c.env), c.req.valid("param").draftId), 201);
