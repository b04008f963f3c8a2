import { ApiError, type EventType, newWebhookSecret, type operations } from "@crm/contracts";
import { newId, regional } from "@crm/db";
import { and, eq, sql } from "drizzle-orm";
import { loadInWorkspace, reachWorkspace } from "../../access";
import { changeWithoutLoss, nextUpdatedAt, runBatchAtVersion, runConditionalBatch } from "../../conditional-write";
import type { RegionEnv, ServiceContext } from "../../env";
import type { BodyOf, QueryOf } from "../../inputs";
import { creationOrder, paginate } from "../../pagination";
import { checkObjectTypeIds, safeUrl, type WebhookRow, webhookResponse } from "./resources";

const { webhooks, webhookAttempts } = regional;
type AttemptRow = typeof webhookAttempts.$inferSelect;
/** What URL checks read of the environment. */
type WebhookEnv = Pick<RegionEnv, "WEBHOOKS_ALLOW_LOOPBACK">;

/** Webhooks are managed and read by admins and owners only (DESIGN.md section 3). */
export const loadWebhook = ({ db, actor }: ServiceContext, id: string) =>
  loadInWorkspace(db, actor, webhooks, id, { what: "Webhook", role: "admin" });

/** The subscription with its endpoint's health, asked of its lane (a disabled one is not asked: nothing is sent). */
export async function readWebhook(context: ServiceContext, env: Pick<RegionEnv, "WEBHOOK_ENDPOINTS">, webhookId: string) {
  const webhook = await loadWebhook(context, webhookId);
  const health = await env.WEBHOOK_ENDPOINTS.get(env.WEBHOOK_ENDPOINTS.idFromName(webhook.id)).health();
  return {
    ...webhookResponse(webhook),
    endpointState: { ...health, status: webhook.isActive ? health.status : ("disabled" as const) },
  };
}

/** Removes the subscription; under `If-Match`, only at the version named. */
export async function deleteWebhookOf(context: ServiceContext, webhookId: string): Promise<void> {
  await loadWebhook(context, webhookId);
  await runBatchAtVersion(context, webhooks, webhookId, [context.db.delete(webhooks).where(eq(webhooks.id, webhookId))]);
}

/** A new subscription with a fresh signing secret: the row as stored, secret included, for the one response that shows it. */
export async function createWebhookIn(
  { db, actor }: ServiceContext,
  env: WebhookEnv,
  input: BodyOf<typeof operations.createWebhook>,
): Promise<WebhookRow> {
  await reachWorkspace(db, actor, input.workspaceId, { what: "Workspace", role: "admin" });
  await checkObjectTypeIds(db, input.workspaceId, input.objectTypeIds ?? []);
  const now = Date.now();
  const row: WebhookRow = {
    id: newId("whk", now),
    workspaceId: input.workspaceId,
    url: safeUrl(input.url, env),
    eventTypes: [...new Set(input.eventTypes)],
    objectTypeIds: [...new Set(input.objectTypeIds ?? [])],
    description: input.description ?? null,
    isActive: true,
    disabledReason: null,
    secret: newWebhookSecret(),
    previousSecret: null,
    previousSecretExpiresAt: null,
    createdBy: actor.actor.id,
    createdAt: now,
    updatedAt: now,
    urlChangedAt: null,
  };
  await db.insert(webhooks).values(row);
  await assertWithinSubscriptionLimit(db, row);
  return row;
}

/** DESIGN.md section 14: a workspace holds at most this many subscriptions. */
export const maxWebhooksPerWorkspace = 50;

/**
 * Two creations at once both insert; in insertion order (SQLite's rowid) the first
 * `maxWebhooksPerWorkspace` of the workspace stay and a later one is removed before it is
 * answered, so no number of concurrent creations passes the limit.
 */
async function assertWithinSubscriptionLimit(db: ServiceContext["db"], row: WebhookRow): Promise<void> {
  const kept = await db
    .select({ id: webhooks.id })
    .from(webhooks)
    .where(eq(webhooks.workspaceId, row.workspaceId))
    .orderBy(sql`rowid`)
    .limit(maxWebhooksPerWorkspace);
  if (kept.some((webhook) => webhook.id === row.id)) return;
  await db.delete(webhooks).where(eq(webhooks.id, row.id));
  throw new ApiError("conflict", `A workspace holds at most ${maxWebhooksPerWorkspace} webhook subscriptions; delete one first`);
}

export async function listWebhooksOf(context: ServiceContext, query: QueryOf<typeof operations.listWebhooks>) {
  const { db, actor, cursorSecret } = context;
  const { workspaceId, limit, cursor } = query;
  await reachWorkspace(db, actor, workspaceId, { what: "Workspace", role: "admin" });
  const page = await paginate<WebhookRow>(
    {
      scope: `webhooks:${workspaceId}`,
      limit,
      cursor,
      order: creationOrder(webhooks),
      fetch: ({ after, orderBy, limit }) =>
        db
          .select()
          .from(webhooks)
          .where(and(eq(webhooks.workspaceId, workspaceId), after))
          .orderBy(...orderBy)
          .limit(limit),
    },
    cursorSecret,
  );
  return { data: page.data.map(webhookResponse), pagination: page.pagination };
}

/**
 * Changes the named properties of a subscription, conditionally (`changeWithoutLoss`). What its lane
 * set on its own (disabled after a 410) and its secrets are never written back from what was read:
 * only `isActive: true`, named, enables it again.
 */
export async function updateWebhookOf(
  context: ServiceContext,
  env: WebhookEnv & Pick<RegionEnv, "WEBHOOK_ENDPOINTS">,
  webhookId: string,
  changes: BodyOf<typeof operations.updateWebhook>,
) {
  const { db } = context;
  return changeWithoutLoss(context, {
    what: "Webhook",
    named: Object.keys(changes),
    read: () => loadWebhook(context, webhookId),
    shown: webhookResponse,
    write: async (webhook) => {
      await checkObjectTypeIds(db, webhook.workspaceId, changes.objectTypeIds ?? []);
      const columns: Partial<WebhookRow> = {
        ...(changes.url === undefined ? {} : { url: safeUrl(changes.url, env) }),
        ...(changes.eventTypes ? { eventTypes: [...new Set(changes.eventTypes)] } : {}),
        ...(changes.objectTypeIds ? { objectTypeIds: [...new Set(changes.objectTypeIds)] } : {}),
        ...(changes.description === undefined ? {} : { description: changes.description }),
        ...(changes.isActive === undefined ? {} : { isActive: changes.isActive }),
        ...(changes.isActive ? { disabledReason: null } : {}),
      };
      const updatedAt = nextUpdatedAt(webhook);
      if (columns.url !== undefined && columns.url !== webhook.url) columns.urlChangedAt = updatedAt;
      await runConditionalBatch(db, webhooks, webhook, columns, updatedAt);
      const updated = { ...webhook, ...columns, updatedAt };
      // The lane rereads its subscription only every second: handed over before the answer, a new
      // URL (or filters, or deactivation) applies to every delivery attempted after it.
      await env.WEBHOOK_ENDPOINTS.get(env.WEBHOOK_ENDPOINTS.idFromName(webhook.id)).subscriptionChanged(updated);
      return webhookResponse(updated);
    },
  });
}

/** The old secret keeps signing for a day beside the new one, so receivers can switch without a gap. */
const overlapMs = 24 * 60 * 60 * 1000;

/**
 * A new signing secret, in one statement that moves the stored secret to `previousSecret`: never
 * written back from an earlier read, so two rotations keep each other's secrets in order. The row
 * as stored, new secret included, for the one response that shows it.
 */
export async function rotateWebhookSecretOf(context: ServiceContext, webhookId: string): Promise<WebhookRow> {
  await loadWebhook(context, webhookId);
  const now = Date.now();
  const [rotated] = await context.db
    .update(webhooks)
    .set({
      secret: newWebhookSecret(),
      previousSecret: sql`${webhooks.secret}`,
      previousSecretExpiresAt: now + overlapMs,
      updatedAt: sql`max(${now}, ${webhooks.updatedAt} + 1)`,
    })
    .where(eq(webhooks.id, webhookId))
    .returning();
  if (!rotated) throw new ApiError("not_found", "Webhook not found");
  return rotated;
}

/** The delivery attempts of a subscription, newest first, with counts of its deliveries by their latest state. */
export async function listDeliveriesOf(
  context: ServiceContext,
  webhookId: string,
  { limit, cursor }: QueryOf<typeof operations.listWebhookDeliveries>,
) {
  const { db, cursorSecret } = context;
  await loadWebhook(context, webhookId);
  const page = await paginate<AttemptRow>(
    {
      scope: `deliveries:${webhookId}`,
      limit,
      cursor,
      order: creationOrder(webhookAttempts, "desc"),
      fetch: ({ after, orderBy, limit }) =>
        db
          .select()
          .from(webhookAttempts)
          .where(and(eq(webhookAttempts.webhookId, webhookId), after))
          .orderBy(...orderBy)
          .limit(limit),
    },
    cursorSecret,
  );
  // A delivery counts by its latest state; rateLimited counts deliveries the burst limit ever held back.
  const [statistics] = await db.all<{ delivered: number; failed: number; pending: number; rateLimited: number }>(sql`
    with latest as (
      select delivery_id, status, row_number() over (partition by delivery_id order by created_at desc, id desc) as n
      from webhook_attempts where webhook_id = ${webhookId}
    )
    select
      coalesce(sum(status = 'delivered'), 0) as delivered,
      coalesce(sum(status = 'failed'), 0) as failed,
      coalesce(sum(status in ('retrying', 'rate_limited')), 0) as pending,
      (select count(distinct delivery_id) from webhook_attempts where webhook_id = ${webhookId} and status = 'rate_limited') as rateLimited
    from latest where n = 1`);
  const data = page.data.map((row) => ({
    deliveryId: row.deliveryId,
    attempt: row.attempt,
    eventId: row.eventId,
    eventType: row.eventType as EventType,
    status: row.status,
    responseStatus: row.responseStatus,
    error: row.error,
    durationMs: row.durationMs,
    nextAttemptAt: row.nextAttemptAt,
    createdAt: row.createdAt,
  }));
  return { data, pagination: page.pagination, statistics: statistics ?? { delivered: 0, failed: 0, pending: 0, rateLimited: 0 } };
}
