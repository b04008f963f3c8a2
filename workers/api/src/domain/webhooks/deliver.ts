import { webhookHeaders } from "@crm/contracts";
import { newId, regional } from "@crm/db";
import { eq } from "drizzle-orm";
import type { Database, RegionEnv } from "../../env";
import type { DeliveryMessage } from "./messages";

import { checkWebhookUrl } from "./url-safety";

const { webhooks, webhookAttempts } = regional;

/** Seconds before each retry (DESIGN.md section 10): 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h. */
export const retrySchedule = [5, 300, 1800, 7200, 18_000, 36_000, 50_400, 72_000, 86_400];
/** A Queue message can be delayed by 12 h at most; longer waits are made of several hops. */
const maxQueueDelaySeconds = 43_200;
const timeoutMs = 15_000;
const honoursRetryAfter = new Set([429, 502, 504]);

export const scheduleOf = (env: Pick<RegionEnv, "WEBHOOK_RETRY_SCHEDULE">) =>
  env.WEBHOOK_RETRY_SCHEDULE ? env.WEBHOOK_RETRY_SCHEDULE.split(",").map(Number) : retrySchedule;

/** `Retry-After` in seconds, from delta-seconds or an HTTP date; null when absent or unreadable. */
function retryAfterSeconds(response: Response, now: number): number | null {
  const header = response.headers.get("retry-after");
  if (!header) return null;
  if (/^\d+$/.test(header.trim())) return Number(header.trim());
  const date = Date.parse(header);
  return Number.isNaN(date) ? null : Math.max(0, Math.ceil((date - now) / 1000));
}

/** ±10% jitter, so that deliveries failing together do not retry together. */
const jittered = (seconds: number) => Math.round(seconds * (0.9 + Math.random() * 0.2));

type Env = Pick<
  RegionEnv,
  "DELIVERIES" | "DELIVERIES_DEAD" | "WEBHOOK_BURST" | "WEBHOOKS_ALLOW_LOOPBACK" | "WEBHOOK_RETRY_SCHEDULE"
>;

/** Queues the message again to run at `runAt`, in hops of at most 12 h. */
async function later(env: Env, message: DeliveryMessage, runAt: number, now: number) {
  const delaySeconds = Math.min(maxQueueDelaySeconds, Math.max(0, Math.ceil((runAt - now) / 1000)));
  await env.DELIVERIES.send({ ...message, notBefore: runAt }, { delaySeconds });
}

/**
 * One delivery attempt: burst limit, signature, POST (15 s, no redirects), then the outcome:
 * 2xx delivered; 410 disables the subscription; otherwise a retry by the schedule (or the
 * receiver's Retry-After for 429/502/504 when longer), and after the last attempt the dead-letter
 * queue. Every attempt and every hold-back is a row of `webhook_attempts`.
 */
export async function deliverOne(db: Database, env: Env, message: DeliveryMessage, now = Date.now()): Promise<void> {
  if (message.notBefore > now + 1000) return later(env, message, message.notBefore, now);
  const [webhook] = await db.select().from(webhooks).where(eq(webhooks.id, message.webhookId));
  if (!webhook?.isActive) return; // deleted or disabled since: nothing to deliver
  const record = (
    row: Omit<
      typeof webhookAttempts.$inferInsert,
      "id" | "deliveryId" | "webhookId" | "eventId" | "eventType" | "attempt" | "createdAt"
    >,
  ) =>
    db.insert(webhookAttempts).values({
      id: newId("att", now),
      deliveryId: message.deliveryId,
      webhookId: message.webhookId,
      eventId: message.eventId,
      eventType: message.eventType,
      attempt: message.attempt,
      createdAt: now,
      ...row,
    });

  const bucket = env.WEBHOOK_BURST.get(env.WEBHOOK_BURST.idFromName(message.workspaceId));
  const burst = await bucket.take();
  if (!burst.allowed) {
    await record({ status: "rate_limited", nextAttemptAt: now + burst.waitMs });
    return later(env, message, now + burst.waitMs, now);
  }

  const verdict = checkWebhookUrl(webhook.url, env.WEBHOOKS_ALLOW_LOOPBACK === "true");
  const secrets = [
    webhook.secret,
    ...(webhook.previousSecret && (webhook.previousSecretExpiresAt ?? 0) > now ? [webhook.previousSecret] : []),
  ];
  const started = Date.now();
  let status: number | null = null;
  let error: string | null = null;
  let retryAfter: number | null = null;
  if (!verdict.ok) {
    error = verdict.reason;
  } else {
    try {
      const headers = await webhookHeaders(secrets, message.deliveryId, Math.floor(now / 1000), message.payload);
      const response = await fetch(verdict.url, {
        method: "POST",
        headers,
        body: message.payload,
        redirect: "manual",
        signal: AbortSignal.timeout(timeoutMs),
      });
      await response.body?.cancel();
      status = response.status;
      if (honoursRetryAfter.has(status)) retryAfter = retryAfterSeconds(response, now);
      if (status >= 300 && status < 400) error = "Redirects are not followed";
    } catch (failure) {
      error =
        failure instanceof Error && failure.name === "TimeoutError"
          ? "Timed out after 15 s"
          : `Request failed: ${String(failure)}`;
    }
  }
  const durationMs = Date.now() - started;

  if (status !== null && status >= 200 && status < 300) {
    await record({ status: "delivered", responseStatus: status, durationMs });
    return;
  }
  if (status === 410) {
    await db.batch([
      record({
        status: "failed",
        responseStatus: status,
        error: "The receiver answered 410 Gone: subscription disabled",
        durationMs,
      }),
      db.update(webhooks).set({ isActive: false, disabledReason: "gone", updatedAt: now }).where(eq(webhooks.id, webhook.id)),
    ]);
    return;
  }
  const schedule = scheduleOf(env);
  const waitSeconds = schedule[message.attempt - 1];
  if (waitSeconds === undefined) {
    await record({ status: "failed", responseStatus: status, error: error ?? `Receiver answered ${status}`, durationMs });
    await env.DELIVERIES_DEAD.send(message);
    return;
  }
  const delay = Math.max(jittered(waitSeconds), retryAfter ?? 0);
  const runAt = now + delay * 1000;
  await record({
    status: "retrying",
    responseStatus: status,
    error: error ?? `Receiver answered ${status}`,
    durationMs,
    nextAttemptAt: runAt,
  });
  await later(env, { ...message, attempt: message.attempt + 1 }, runAt, now);
}

/**
 * Deliveries consumer: the batch's deliveries run concurrently (they go to different receivers or
 * are independent requests to one), and each message is acknowledged once its attempt is recorded
 * and any retry queued. A failure leaves its message, and any not yet done, for redelivery.
 */
export async function deliverBatch(db: Database, env: Env, batch: MessageBatch<DeliveryMessage>): Promise<void> {
  const outcomes = await Promise.allSettled(
    batch.messages.map(async (message) => {
      await deliverOne(db, env, message.body);
      message.ack();
    }),
  );
  const failed = outcomes.find((outcome) => outcome.status === "rejected");
  if (failed) throw failed.reason;
}
