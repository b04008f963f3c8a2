import type { operations } from "@crm/contracts";
import { deleteWebhookOf } from "../../domain/webhooks/subscriptions";
import type { OperationHandler } from "../../handler";

export const deleteWebhook: OperationHandler<typeof operations.deleteWebhook> = async (c) => {
  const { webhookId } = c.req.valid("param");
  await deleteWebhookOf(c.var, webhookId);
  return c.json({ deletedId: webhookId }, 200);
};
