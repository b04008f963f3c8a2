import { insertRowsAsJson, newId, regional, runBatch } from "@crm/db";
import type { Database } from "../../database";
import type { RegionEnv } from "../../env";
import { type DeliveriesQueueMessage, type DeliveryMessage, isLaneWake } from "./messages";
import { jsonBytes, type SizedMessage, sendInBatches } from "./queue-batches";

const { webhookAttempts } = regional;

/**
 * A call to a Durable Object that failed because the object restarted (a deploy, an eviction:
 * `retryable` on the error) is made again, this many times in all: otherwise the whole Queue batch
 * would be retried, and after the Queue's last retry its events dropped.
 */
const objectCallAttempts = 4;

/** The object call, made again while it fails with an error the runtime marks retryable (never one marked `overloaded`). */
async function callObject<Result>(call: () => Promise<Result>): Promise<Result> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      const { retryable, overloaded } = (error ?? {}) as { retryable?: boolean; overloaded?: boolean };
      if (!retryable || overloaded || attempt >= objectCallAttempts) throw error;
    }
  }
}

/** A Queue message can be delayed by 12 h at most; longer waits are made of several hops. */
const maxQueueDelaySeconds = 43_200;

export type DeliveryEnv = Pick<RegionEnv, "DELIVERIES" | "WEBHOOK_BURST" | "WEBHOOK_ENDPOINTS">;

/**
 * Hands deliveries to their subscriptions' lanes, never waiting on a receiver. It applies each
 * workspace's burst limit (one reservation per workspace; a delivery over it is given its later
 * slot once, recorded as `rate_limited`, and queued on the deliveries Queue for then) and passes
 * the rest to their lanes (`WebhookEndpoint`, one call per subscription), which keep and send them.
 * Resolves once all of that is stored; a caller that fails and runs again is harmless, since a lane
 * ignores a delivery it already holds. The events consumer routes an event's first deliveries this
 * way directly; the deliveries consumer routes what comes back from the Queue.
 */
export async function routeDeliveries(
  db: Database,
  env: DeliveryEnv,
  messages: DeliveryMessage[],
  now = Date.now(),
): Promise<void> {
  const requeued: SizedMessage<DeliveryMessage>[] = [];
  const admitted: DeliveryMessage[] = [];
  const unreserved: DeliveryMessage[] = [];
  for (const message of messages) {
    if (message.notBefore > now + 1000) requeued.push(later(message, message.notBefore, now));
    else if (message.burstSlot) admitted.push(message);
    else unreserved.push(message);
  }
  const holds: DeliveryMessage[] = [];
  await Promise.all(
    [...Map.groupBy(unreserved, (message) => message.workspaceId)].map(async ([workspaceId, messages]) => {
      const waits = await callObject(() =>
        env.WEBHOOK_BURST.get(env.WEBHOOK_BURST.idFromName(workspaceId)).reserve(messages.length),
      );
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
  if (holds.length > 0)
    await runBatch(db, [
      insertRowsAsJson(
        db,
        webhookAttempts,
        holds.map((message) => ({
          id: newId("att", now),
          deliveryId: message.deliveryId,
          webhookId: message.webhookId,
          eventId: message.eventId,
          eventType: message.eventType,
          attempt: message.attempt,
          status: "rate_limited" as const,
          nextAttemptAt: message.notBefore,
          createdAt: now,
        })),
      ),
    ]);
  await sendInBatches(env.DELIVERIES, requeued);
  await Promise.all(
    [...Map.groupBy(admitted, (message) => message.webhookId)].map(([webhookId, messages]) =>
      callObject(() => env.WEBHOOK_ENDPOINTS.get(env.WEBHOOK_ENDPOINTS.idFromName(webhookId)).accept(messages)),
    ),
  );
}

/**
 * Deliveries consumer: what the burst limit held back comes back here when its slot is due, and a
 * busy lane's wake-ups (`LaneWake`) call their lanes. Acknowledged once routed and woken.
 */
export async function deliverBatch(db: Database, env: DeliveryEnv, batch: MessageBatch<DeliveriesQueueMessage>): Promise<void> {
  const bodies = batch.messages.map((message) => message.body);
  const lanesToWake = new Set(bodies.filter(isLaneWake).map((wake) => wake.wakeLane));
  await Promise.all([
    routeDeliveries(
      db,
      env,
      bodies.filter((body): body is DeliveryMessage => !isLaneWake(body)),
    ),
    ...[...lanesToWake].map((webhookId) =>
      callObject(() => env.WEBHOOK_ENDPOINTS.get(env.WEBHOOK_ENDPOINTS.idFromName(webhookId)).wake()),
    ),
  ]);
  batch.ackAll();
}

/** The message again, to come back at `runAt` (in hops of at most 12 h). */
function later(message: DeliveryMessage, runAt: number, now: number): SizedMessage<DeliveryMessage> {
  const delaySeconds = Math.min(maxQueueDelaySeconds, Math.max(0, Math.ceil((runAt - now) / 1000)));
  const body = { ...message, notBefore: runAt };
  return { body, bytes: jsonBytes(body), delaySeconds };
}
