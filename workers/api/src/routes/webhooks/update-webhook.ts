import type { operations } from "@crm/contracts";
import { regional } from "@crm/db";
import { eq } from "drizzle-orm";
import { checkObjectTypeIds, loadWebhook, safeUrl, type WebhookRow, webhookResponse } from "../../domain/webhooks/resources";
import type { OperationHandler } from "../../handler";

export const updateWebhook: OperationHandler<typeof operations.updateWebhook> = async (c) => {
  const { webhookId } = c.req.valid("param");
  const changes = c.req.valid("json");
  const { db, actor } = c.var;
  const webhook = await loadWebhook(db, actor, webhookId);
  await checkObjectTypeIds(db, webhook.workspaceId, changes.objectTypeIds ?? []);
  const updated: WebhookRow = {
    ...webhook,
    url: changes.url === undefined ? webhook.url : safeUrl(changes.url, c.env),
    eventTypes: changes.eventTypes ? [...new Set(changes.eventTypes)] : webhook.eventTypes,
    objectTypeIds: changes.objectTypeIds ? [...new Set(changes.objectTypeIds)] : webhook.objectTypeIds,
    description: changes.description === undefined ? webhook.description : changes.description,
    isActive: changes.isActive ?? webhook.isActive,
    disabledReason: changes.isActive ? null : webhook.disabledReason,
    updatedAt: Date.now(),
  };
  await db.update(regional.webhooks).set(updated).where(eq(regional.webhooks.id, webhookId));
  return c.json({ webhook: webhookResponse(updated) }, 200);
};
