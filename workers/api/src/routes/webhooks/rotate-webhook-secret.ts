import type { operations } from "@crm/contracts";
import { signingSecretShownOnce, webhookResponse } from "../../domain/webhooks/resources";
import { rotateWebhookSecretOf } from "../../domain/webhooks/subscriptions";
import type { OperationHandler } from "../../handler";
import { keepSecretsFromReplay } from "../../idempotency";

export const rotateWebhookSecret: OperationHandler<typeof operations.rotateWebhookSecret> = async (c) => {
  const { webhookId } = c.req.valid("param");
  const row = await rotateWebhookSecretOf(c.var, webhookId);
  // The lane signs from the first delivery after this answer with the new secret (beside the old one).
  const lane = c.env.WEBHOOK_ENDPOINTS.get(c.env.WEBHOOK_ENDPOINTS.idFromName(webhookId));
  await lane.subscriptionChanged(row);
  keepSecretsFromReplay(c, signingSecretShownOnce(webhookId));
  return c.json({ webhook: webhookResponse(row), secret: row.secret }, 200);
};
