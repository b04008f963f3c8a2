import type { operations } from "@crm/contracts";
import { signingSecretShownOnce, webhookResponse } from "../../domain/webhooks/resources";
import { rotateWebhookSecretOf } from "../../domain/webhooks/subscriptions";
import type { OperationHandler } from "../../handler";
import { keepSecretsFromReplay } from "../../idempotency";

export const rotateWebhookSecret: OperationHandler<typeof operations.rotateWebhookSecret> = async (c) => {
  const { webhookId } = c.req.valid("param");
  const row = await rotateWebhookSecretOf(c.var, webhookId);
  keepSecretsFromReplay(c, signingSecretShownOnce(webhookId));
  return c.json({ webhook: webhookResponse(row), secret: row.secret }, 200);
};
