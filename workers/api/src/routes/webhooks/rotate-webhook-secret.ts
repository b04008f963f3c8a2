import type { operations } from "@crm/contracts";
import { regional } from "@crm/db";
import { eq } from "drizzle-orm";
import { loadWebhook, signingSecretShownOnce, type WebhookRow, webhookResponse } from "../../domain/webhooks/resources";
import { newWebhookSecret } from "../../domain/webhooks/signing";
import type { OperationHandler } from "../../handler";
import { keepSecretsFromReplay } from "../../idempotency";

/** The old secret keeps signing for a day beside the new one, so receivers can switch without a gap. */
const overlapMs = 24 * 60 * 60 * 1000;

export const rotateWebhookSecret: OperationHandler<typeof operations.rotateWebhookSecret> = async (c) => {
  const { webhookId } = c.req.valid("param");
  const webhook = await loadWebhook(c.var.db, c.var.actor, webhookId);
  const now = Date.now();
  const updated: WebhookRow = {
    ...webhook,
    secret: newWebhookSecret(),
    previousSecret: webhook.secret,
    previousSecretExpiresAt: now + overlapMs,
    updatedAt: now,
  };
  await c.var.db.update(regional.webhooks).set(updated).where(eq(regional.webhooks.id, webhookId));
  keepSecretsFromReplay(c, signingSecretShownOnce(webhookId));
  return c.json({ webhook: webhookResponse(updated), secret: updated.secret }, 200);
};
