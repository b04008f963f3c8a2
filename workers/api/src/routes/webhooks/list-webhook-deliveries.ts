import type { operations } from "@crm/contracts";
import { listDeliveriesOf } from "../../domain/webhooks/subscriptions";
import type { OperationHandler } from "../../handler";

export const listWebhookDeliveries: OperationHandler<typeof operations.listWebhookDeliveries> = async (c) => {
  const { webhookId } = c.req.valid("param");
  return c.json(await listDeliveriesOf(c.var, webhookId, c.req.valid("query")), 200);
};
