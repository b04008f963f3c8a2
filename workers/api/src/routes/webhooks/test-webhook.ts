import type { operations } from "@crm/contracts";
import { testWebhookOf } from "../../domain/webhooks/operations";
import type { OperationHandler } from "../../handler";

export const testWebhook: OperationHandler<typeof operations.testWebhook> = async (c) =>
  c.json(await testWebhookOf(c.var, c.env, c.req.valid("param").webhookId), 202);
