import { ApiError, type EventType } from "@crm/contracts";
import { regional } from "@crm/db";
import { eq } from "drizzle-orm";
import { webhookSettings } from "../../config";
import type { Database } from "../../database";
import type { ResponseSecrets } from "../../env";
import { checkWebhookUrl } from "./url-safety";

const { objectTypes, webhooks } = regional;
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

/** A response's signing secret is shown once: a replay of the request answers it null with this notice. */
export const signingSecretShownOnce = (webhookId: string): ResponseSecrets => ({
  properties: ["secret"],
  notice: `The signing secret is shown once, in the first response to this request. POST /webhooks/${webhookId}/rotate-secret issues a new one.`,
});

/** The target URL, or 400 naming why it is refused (SSRF rules). */
export function safeUrl(url: string, env: object): string {
  const verdict = checkWebhookUrl(url, webhookSettings(env).allowLoopback);
  if (!verdict.ok)
    throw new ApiError("invalid_request", `The webhook URL is refused: ${verdict.reason}`, [
      { path: "url", message: verdict.reason },
    ]);
  return verdict.url;
}

/**
 * A subscription filters on object types of its own workspace only: an unknown id, or one of
 * another workspace or organization, is 400 with a detail per id (as the request lists them).
 */
export async function checkObjectTypeIds(db: Database, workspaceId: string, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  // All of the workspace's types in one single-parameter query: a list of up to 100 ids would pass D1's bound-parameter limit.
  const own = await db.select({ id: objectTypes.id }).from(objectTypes).where(eq(objectTypes.workspaceId, workspaceId));
  const known = new Set(own.map((objectType) => objectType.id));
  const problems = ids.flatMap((id, i) =>
    known.has(id) ? [] : [{ path: `objectTypeIds.${i}`, message: "Not an object type of this workspace" }],
  );
  if (problems.length > 0)
    throw new ApiError(
      "invalid_request",
      "objectTypeIds must name object types of the subscription's workspace; see details.",
      problems,
    );
}
