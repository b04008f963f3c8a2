import type { operations } from "@crm/contracts";
import { listWebhooksOf } from "../../domain/webhooks/subscriptions";
import type { OperationHandler } from "../../handler";

export const listWebhooks: OperationHandler<typeof operations.listWebhooks> = async (c) =>
  c.json(await listWebhooksOf(c.var, c.req.valid("query")), 200);
