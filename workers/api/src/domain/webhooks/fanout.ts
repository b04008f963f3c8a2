import { regional } from "@crm/db";
import { and, eq } from "drizzle-orm";
import type { Database } from "../../database";
import { type DeliveryEnv, routeDeliveries } from "./deliver";
import type { DeliveryMessage, EventsMessage, OutboxEvent } from "./messages";

const { webhooks } = regional;

/** The delivery id (the `webhook-id` header) of an event to a subscription: the same on every retry and resend. */
export async function deliveryId(eventId: string, webhookId: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(`${eventId}:${webhookId}`)));
  return `dlv_${[...digest.slice(0, 13)].map((byte) => byte.toString(16).padStart(2, "0")).join("")}`;
}

type Subscription = typeof webhooks.$inferSelect;

/** An event goes to a subscription that existed when the change happened and whose filters match, event type and object type both. */
export const subscribedTo = (webhook: Subscription, event: OutboxEvent) =>
  webhook.createdAt <= event.createdAt &&
  webhook.eventTypes.includes(event.type) &&
  (webhook.objectTypeIds.length === 0 || (event.objectTypeId !== null && webhook.objectTypeIds.includes(event.objectTypeId)));

/** The active subscriptions of a workspace, read once: `.all()` runs the query once (a query builder is a thenable that runs again on every `await`). */
export const activeSubscriptions = (db: Database, workspaceId: string): Promise<Subscription[]> =>
  db
    .select()
    .from(webhooks)
    .where(and(eq(webhooks.workspaceId, workspaceId), eq(webhooks.isActive, true)))
    .all();

/**
 * Events consumer: each event becomes one delivery message per active subscription of its
 * workspace that existed when the change happened and whose filters match, event type and
 * object type both, before anything is sent. The batch's deliveries go straight to their lanes
 * (through the burst limit, `routeDeliveries`), not through another Queue hop, and the batch is
 * acknowledged after: a crash before that redelivers the events, and their deliveries keep their ids.
 */
export async function fanOut(db: Database, env: DeliveryEnv, batch: MessageBatch<EventsMessage>): Promise<void> {
  // One lookup per workspace per batch: events of a busy workspace arrive together.
  const byWorkspace = new Map<string, Promise<Subscription[]>>();
  const deliveries: DeliveryMessage[] = [];
  const events = batch.messages.flatMap(({ body }) => body.events.map((event) => ({ ...event, shard: body.shard })));
  for (const event of events) {
    let lookup = byWorkspace.get(event.workspaceId);
    if (!lookup) {
      lookup = activeSubscriptions(db, event.workspaceId);
      byWorkspace.set(event.workspaceId, lookup);
    }
    const matching = (await lookup).filter((webhook) => subscribedTo(webhook, event));
    const eventDeliveries: DeliveryMessage[] = await Promise.all(
      matching.map(async (webhook) => ({
        shard: event.shard,
        deliveryId: await deliveryId(event.eventId, webhook.id),
        webhookId: webhook.id,
        workspaceId: event.workspaceId,
        eventId: event.eventId,
        eventType: event.type,
        payload: event.payload,
        attempt: 1,
        notBefore: 0,
      })),
    );
    deliveries.push(...eventDeliveries);
  }
  await routeDeliveries(db, env, deliveries);
  batch.ackAll();
}
