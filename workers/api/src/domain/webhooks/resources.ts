import { ApiError, type EventType } from "@crm/contracts";
import { regional } from "@crm/db";
import { eq } from "drizzle-orm";
import type { AppEnv, Database } from "../../env";
import { reach } from "../crm/resources";
import { checkWebhookUrl } from "./url-safety";

const { webhooks } = regional;
export type WebhookRow = typeof webhooks.$inferSelect;

export const webhookResponse = (row: WebhookRow) => ({
  id: row.id,
  workspaceId: row.workspaceId,
  url: row.url,
  eventTypes: row.eventTypes as EventType[],
  objectTypeIds: row.objectTypeIds,
  description: row.description,
  isActive: row.isActive,
  disabledReason: row.disabledReason,
  createdAt: row.createdAt,
  updatedAt: row.updatedAt,
});

/** Webhooks are managed and read by admins and owners only (DESIGN.md section 3). */
export async function loadWebhook(db: Database, actor: AppEnv["Variables"]["actor"], id: string): Promise<WebhookRow> {
  const [webhook] = await db.select().from(webhooks).where(eq(webhooks.id, id)).limit(1);
  if (!webhook) throw new ApiError("not_found", "Webhook not found");
  await reach(db, actor, webhook.workspaceId, "Webhook", "admin");
  return webhook;
}

/** The target URL, or 400 naming why it is refused (SSRF rules). */
export function safeUrl(url: string, env: AppEnv["Bindings"]): string {
  const verdict = checkWebhookUrl(url, env.WEBHOOKS_ALLOW_LOOPBACK === "true");
  if (!verdict.ok)
    throw new ApiError("invalid_request", `The webhook URL is refused: ${verdict.reason}`, [
      { path: "body.url", message: verdict.reason },
    ]);
  return verdict.url;
}
