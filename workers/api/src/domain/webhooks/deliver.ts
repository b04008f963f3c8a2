import { newId, regional } from "@crm/db";
import { runBatch } from "../../batch";
import type { Database, RegionEnv } from "../../env";
import type { DeliveryMessage } from "./messages";
import { sendInBatches } from "./queue-batches";

const { webhookAttempts } = regional;

/** A Queue message can be delayed by 12 h at most; longer waits are made of several hops. */
const maxQueueDelaySeconds = 43_200;

type Env = Pick<RegionEnv, "DELIVERIES" | "WEBHOOK_BURST" | "WEBHOOK_ENDPOINTS">;

const groupBy = <Item>(items: Item[], key: (item: Item) => string) => {
  const groups = new Map<string, Item[]>();
  for (const item of items) groups.set(key(item), [...(groups.get(key(item)) ?? []), item]);
  return groups;
};

const payloadSize = (message: DeliveryMessage) => message.payload.length * 3;

/**
 * Deliveries consumer. It never waits on a receiver: it applies each workspace's burst limit (one
 * reservation per workspace and batch; a delivery over it is given its later slot once, recorded
 * as `rate_limited`, and queued again for then) and hands the rest to their subscriptions' lanes
 * (`WebhookEndpoint`, one call per subscription and batch), which keep and send them. The batch is
 * acknowledged once all of that is done; a failure redelivers it whole, and a lane ignores a
 * delivery it already holds.
 */
export async function deliverBatch(db: Database, env: Env, batch: MessageBatch<DeliveryMessage>): Promise<void> {
  const now = Date.now();
  const requeued: { body: DeliveryMessage; delaySeconds: number }[] = [];
  const admitted: DeliveryMessage[] = [];
  const unreserved: DeliveryMessage[] = [];
  for (const { body } of batch.messages) {
    if (body.notBefore > now + 1000) requeued.push(later(body, body.notBefore, now));
    else if (body.burstSlot) admitted.push(body);
    else unreserved.push(body);
  }
  const holds: DeliveryMessage[] = [];
  await Promise.all(
    [...groupBy(unreserved, (message) => message.workspaceId)].map(async ([workspaceId, messages]) => {
      const waits = await env.WEBHOOK_BURST.get(env.WEBHOOK_BURST.idFromName(workspaceId)).reserve(messages.length);
      for (const [i, message] of messages.entries()) {
        const waitMs = waits[i] ?? 0;
        if (waitMs === 0) {
          admitted.push(message);
          continue;
        }
        const slot = { ...message, notBefore: now + waitMs, burstSlot: true };
        holds.push(slot);
        requeued.push(later(slot, slot.notBefore, now));
      }
    }),
  );
  await runBatch(
    db,
    holds.map((message) =>
      db.insert(webhookAttempts).values({
        id: newId("att", now),
        deliveryId: message.deliveryId,
        webhookId: message.webhookId,
        eventId: message.eventId,
        eventType: message.eventType,
        attempt: message.attempt,
        status: "rate_limited",
        nextAttemptAt: message.notBefore,
        createdAt: now,
      }),
    ),
  );
  await sendInBatches(env.DELIVERIES, requeued, payloadSize);
  await Promise.all(
    [...groupBy(admitted, (message) => message.webhookId)].map(([webhookId, messages]) =>
      env.WEBHOOK_ENDPOINTS.get(env.WEBHOOK_ENDPOINTS.idFromName(webhookId)).accept(messages),
    ),
  );
  batch.ackAll();
}

/** The message again, to come back at `runAt` (in hops of at most 12 h). */
function later(message: DeliveryMessage, runAt: number, now: number) {
  const delaySeconds = Math.min(maxQueueDelaySeconds, Math.max(0, Math.ceil((runAt - now) / 1000)));
  return { body: { ...message, notBefore: runAt }, delaySeconds };
}
