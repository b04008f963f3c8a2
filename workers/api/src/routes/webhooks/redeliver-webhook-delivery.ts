import type { operations } from "@crm/contracts";
import { redeliverOf } from "../../domain/webhooks/operations";
import type { OperationHandler } from "../../handler";

export const redeliverWebhookDelivery: OperationHandler<typeof operations.redeliverWebhookDelivery> = async (c) => {
  const { webhookId, deliveryId } = c.req.valid("param");
  return c.json(await redeliverOf(c.var, c.env, webhookId, deliveryId), 202);
};
