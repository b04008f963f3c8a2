import type { operations } from "@crm/contracts";
import { regional } from "@crm/db";
import { eq } from "drizzle-orm";
import { loadWebhook } from "../../domain/webhooks/resources";
import type { OperationHandler } from "../../handler";

export const deleteWebhook: OperationHandler<typeof operations.deleteWebhook> = async (c) => {
  const { webhookId } = c.req.valid("param");
  await loadWebhook(c.var.db, c.var.actor, webhookId);
  await c.var.db.delete(regional.webhooks).where(eq(regional.webhooks.id, webhookId));
  return c.json({ deletedId: webhookId }, 200);
};
