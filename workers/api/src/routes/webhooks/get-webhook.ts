import type { operations } from "@crm/contracts";
import { loadWebhook, webhookResponse } from "../../domain/webhooks/resources";
import type { OperationHandler } from "../../handler";

export const getWebhook: OperationHandler<typeof operations.getWebhook> = async (c) => {
  const { webhookId } = c.req.valid("param");
  return c.json({ webhook: webhookResponse(await loadWebhook(c.var.db, c.var.actor, webhookId)) }, 200);
};
