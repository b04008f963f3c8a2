import type { operations } from "@crm/contracts";
import { signingSecretShownOnce, webhookResponse } from "../../domain/webhooks/resources";
import { createWebhookIn } from "../../domain/webhooks/subscriptions";
import type { OperationHandler } from "../../handler";
import { keepSecretsFromReplay } from "../../idempotency";

export const createWebhook: OperationHandler<typeof operations.createWebhook> = async (c) => {
  const row = await createWebhookIn(c.var, c.env, c.req.valid("json"));
  keepSecretsFromReplay(c, signingSecretShownOnce(row.id));
  return c.json({ webhook: webhookResponse(row), secret: row.secret }, 201);
};
