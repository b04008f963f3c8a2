import { ApiError, type DeliveredEventType, type operations, webhookTestEventType } from "@crm/contracts";
import { newId, regional } from "@crm/db";
import { and, desc, eq, gt, gte, sql } from "drizzle-orm";
import type { Database } from "../../database";
import type { RegionEnv, ServiceContext } from "../../env";
import type { BodyOf } from "../../inputs";
import { keptSince, selectionConditions, writeOrder } from "../events-feed/stored-events";
import { type DeliveryEnv, routeDeliveries } from "./deliver";
import type { WebhookEndpoint } from "./endpoint-lane";
import { deliveryId } from "./fanout";
import type { DeliveryMessage } from "./messages";
import type { WebhookRow } from "./resources";
import { loadWebhook } from "./subscriptions";

const { eventOutbox, webhookAttempts } = regional;

/** Events handed to the lane per call of a replay: bounded memory and RPC size whatever the range holds. */
const replayPage = 200;

/** A subscription that may be sent to: admins and owners only, and an inactive one is 409 with its reason. */
async function activeWebhook(context: ServiceContext, webhookId: string): Promise<WebhookRow> {
  const webhook = await loadWebhook(context, webhookId);
  if (!webhook.isActive)
    throw new ApiError("webhook_disabled", "The subscription is inactive: reactivate it with PATCH isActive: true first", {
      reason: webhook.disabledReason === "gone" ? "The receiver answered 410 Gone" : "Deactivated with isActive: false",
      disabledReason: webhook.disabledReason,
    });
  return webhook;
}

const queued = (message: DeliveryMessage) => ({
  delivery: {
    deliveryId: message.deliveryId,
    webhookId: message.webhookId,
    eventId: message.eventId,
    eventType: message.eventType,
    attempt: message.attempt,
    status: "queued" as const,
  },
});

function deliveryOf(
  context: ServiceContext,
  webhook: WebhookRow,
  event: { id: string; type: DeliveredEventType; payload: string },
  attempt: number,
  id: string,
  again = true,
): DeliveryMessage {
  return {
    shard: context.actor.shard,
    deliveryId: id,
    webhookId: webhook.id,
    workspaceId: webhook.workspaceId,
    eventId: event.id,
    eventType: event.type,
    payload: event.payload,
    attempt,
    notBefore: 0,
    ...(again ? { again } : {}),
  };
}

/**
 * `POST /webhooks/{webhookId}/test`: a `webhook.test` event for this subscription alone, kept in the
 * outbox already marked queued (no fan-out ever sees it; a redelivery reads it back like any event)
 * and handed to the subscription's lane through the workspace's burst limit, as every delivery is.
 */
export async function testWebhookOf(context: ServiceContext, env: DeliveryEnv, webhookId: string) {
  const { db, actor } = context;
  const webhook = await activeWebhook(context, webhookId);
  const now = Date.now();
  const event = {
    id: newId("evt", now),
    type: webhookTestEventType as DeliveredEventType,
    createdAt: now,
    organizationId: actor.organizationId,
    workspaceId: webhook.workspaceId,
    actor: actor.actor,
    data: { webhookId: webhook.id, message: "A test delivery sent with POST /webhooks/{webhookId}/test" },
  };
  const payload = JSON.stringify(event);
  await db.insert(eventOutbox).values({
    id: event.id,
    organizationId: event.organizationId,
    workspaceId: event.workspaceId,
    objectTypeId: null,
    type: event.type,
    payload,
    createdAt: now,
    queuedAt: now,
    claimedAt: now,
  });
  const message = deliveryOf(context, webhook, { ...event, payload }, 1, await deliveryId(event.id, webhook.id), false);
  await routeDeliveries(db, env, [message], now);
  return queued(message);
}

/**
 * `POST /webhooks/{webhookId}/deliveries/{deliveryId}/redeliver`: one more attempt of a delivery that
 * ended, numbered after its last, with its event's stored body and the same `webhook-id`.
 */
export async function redeliverOf(context: ServiceContext, env: DeliveryEnv, webhookId: string, id: string) {
  const { db } = context;
  const webhook = await activeWebhook(context, webhookId);
  const [latest] = await db
    .select()
    .from(webhookAttempts)
    .where(and(eq(webhookAttempts.deliveryId, id), eq(webhookAttempts.webhookId, webhook.id)))
    .orderBy(desc(webhookAttempts.createdAt), desc(webhookAttempts.id))
    .limit(1);
  if (!latest) throw new ApiError("not_found", "Delivery not found");
  if (latest.status === "retrying" || latest.status === "rate_limited")
    throw new ApiError("delivery_pending", "The delivery is still waiting for its next attempt", {
      nextAttemptAt: latest.nextAttemptAt,
    });
  const now = Date.now();
  const [event] = await db
    .select({ id: eventOutbox.id, type: eventOutbox.type, payload: eventOutbox.payload })
    .from(eventOutbox)
    .where(and(eq(eventOutbox.id, latest.eventId), gte(eventOutbox.createdAt, keptSince(now))));
  if (!event) throw new ApiError("not_found", "The delivery's event is older than 30 days and no longer kept");
  const attempts = await lastAttempts(db, [id]);
  const message = deliveryOf(
    context,
    webhook,
    { ...event, type: event.type as DeliveredEventType },
    (attempts.get(id) ?? 0) + 1,
    id,
  );
  await routeDeliveries(db, env, [message], now);
  return queued(message);
}

/**
 * `POST /webhooks/{webhookId}/replay`: exactly the deliveries the fan-out made for this subscription
 * whose events are in the range (its attempt rows in D1, and what its lane holds not yet written
 * there), never events that only its present filters would match; after a `url` change, only events
 * written after it, none of which went to the old receiver. In write order, handed to its lane a page
 * at a time, each with the delivery id (`webhook-id`) it had. The lane sends them only with spare
 * tokens of the workspace's burst limit, after its live deliveries (`WebhookBurst.spare`), and holds
 * one replay at a time: while another's deliveries wait, this one is 409 `replay_in_progress`.
 * A request that stops midway has handed over whole pages, which still go; the next replay may
 * start once they are sent (or `replayHandoverMs` after the last page, whichever is later).
 */
export async function replayOf(
  context: ServiceContext,
  env: Pick<RegionEnv, "WEBHOOK_ENDPOINTS">,
  webhookId: string,
  { sinceMs, untilMs }: BodyOf<typeof operations.replayWebhook>,
  now = Date.now(),
) {
  const webhook = await activeWebhook(context, webhookId);
  const until = untilMs ?? now;
  const problems = [
    ...(sinceMs < keptSince(now) ? [{ path: "sinceMs", message: "Must be within the last 30 days" }] : []),
    ...(until <= sinceMs ? [{ path: "untilMs", message: "Must be after sinceMs" }] : []),
  ];
  if (problems.length > 0) throw new ApiError("invalid_request", "The range to replay is not valid", problems);
  const lane = env.WEBHOOK_ENDPOINTS.get(env.WEBHOOK_ENDPOINTS.idFromName(webhook.id));
  const replay = newId("rpl", now);
  const running = await lane.beginReplay(replay);
  if (running)
    throw new ApiError(
      "replay_in_progress",
      "Another replay of this subscription is still sending; replay again once it is done",
      {
        waiting: running.waiting,
      },
    );
  try {
    return { queued: await handOverReplay(context, lane, webhook, replay, { sinceMs, until }, now) };
  } finally {
    await lane.replayHandedOver(replay);
  }
}

/** Hands the replay's deliveries to the lane, a page at a time in write order; how many. */
async function handOverReplay(
  context: ServiceContext,
  lane: DurableObjectStub<WebhookEndpoint>,
  webhook: WebhookRow,
  replay: string,
  { sinceMs, until }: { sinceMs: number; until: number },
  now: number,
): Promise<number> {
  const { db } = context;
  const held = await lane.heldEventIds();
  const selection = and(
    selectionConditions(
      {
        workspaceId: webhook.workspaceId,
        sinceMs: Math.max(sinceMs, webhook.createdAt, webhook.urlChangedAt ?? 0),
        untilMs: until,
        linkedConversationsOnly: false,
      },
      now,
    ),
    sql`(${eventOutbox.id} in (select ${webhookAttempts.eventId} from ${webhookAttempts} where ${webhookAttempts.webhookId} = ${webhook.id})
      or ${eventOutbox.id} in (select value from json_each(${JSON.stringify(held)})))`,
  );
  let position = 0;
  let count = 0;
  for (;;) {
    const page = await db
      .select({ position: writeOrder, id: eventOutbox.id, type: eventOutbox.type, payload: eventOutbox.payload })
      .from(eventOutbox)
      .where(and(selection, gt(writeOrder, position)))
      .orderBy(writeOrder)
      .limit(replayPage);
    if (page.length === 0) break;
    const ids = await Promise.all(page.map((event) => deliveryId(event.id, webhook.id)));
    const attempts = await lastAttempts(db, ids);
    await lane.accept(
      page.map((event, i) => {
        const id = ids[i] as string;
        const message = deliveryOf(
          context,
          webhook,
          { ...event, type: event.type as DeliveredEventType },
          (attempts.get(id) ?? 0) + 1,
          id,
        );
        return { ...message, replay };
      }),
    );
    count += page.length;
    position = (page.at(-1) as { position: number }).position;
    if (page.length < replayPage) break;
  }
  return count;
}

/** The number of the last attempt of each delivery named (absent: none yet), in one query. */
async function lastAttempts(db: Database, ids: string[]): Promise<Map<string, number>> {
  const rows = await db
    .select({ deliveryId: webhookAttempts.deliveryId, attempt: sql<number>`max(${webhookAttempts.attempt})` })
    .from(webhookAttempts)
    .where(sql`${webhookAttempts.deliveryId} in (select value from json_each(${JSON.stringify(ids)}))`)
    .groupBy(webhookAttempts.deliveryId);
  return new Map(rows.map((row) => [row.deliveryId, row.attempt]));
}
