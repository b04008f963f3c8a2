import type { operations } from "@crm/contracts";
import { updateWebhookOf } from "../../domain/webhooks/subscriptions";
import type { OperationHandler } from "../../handler";

export const updateWebhook: OperationHandler<typeof operations.updateWebhook> = async (c) => {
  const { webhookId } = c.req.valid("param");
  return c.json({ webhook: await updateWebhookOf(c.var, c.env, webhookId, c.req.valid("json")) }, 200);
};
