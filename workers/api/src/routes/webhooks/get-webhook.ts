import type { operations } from "@crm/contracts";
import { readWebhook } from "../../domain/webhooks/subscriptions";
import type { OperationHandler } from "../../handler";

export const getWebhook: OperationHandler<typeof operations.getWebhook> = async (c) => {
  const { webhookId } = c.req.valid("param");
  return c.json({ webhook: await readWebhook(c.var, c.env, webhookId) }, 200);
};
