import type { EventType, operations } from "@crm/contracts";
import { regional } from "@crm/db";
import { and, eq, sql } from "drizzle-orm";
import { loadWebhook } from "../../domain/webhooks/resources";
import type { OperationHandler } from "../../handler";
import { creationOrder, paginate } from "../../pagination";

const { webhookAttempts } = regional;
type AttemptRow = typeof webhookAttempts.$inferSelect;

export const listWebhookDeliveries: OperationHandler<typeof operations.listWebhookDeliveries> = async (c) => {
  const { webhookId } = c.req.valid("param");
  const { limit, cursor } = c.req.valid("query");
  const { db, actor } = c.var;
  await loadWebhook(db, actor, webhookId);
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
    c.env.CURSOR_SECRET,
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
  return c.json(
    { data, pagination: page.pagination, statistics: statistics ?? { delivered: 0, failed: 0, pending: 0, rateLimited: 0 } },
    200,
  );
};
