import { drizzle } from "drizzle-orm/d1";
import { createApp } from "./app";
import { deliverBatch } from "./domain/webhooks/deliver";
import { dispatchOutbox } from "./domain/webhooks/dispatch";
import { fanOut } from "./domain/webhooks/fanout";
import type { DeliveryMessage, EventMessage } from "./domain/webhooks/messages";
import type { RegionEnv } from "./env";
import { purgeExpiredIdempotencyKeys } from "./idempotency";

export { WebhookBurst } from "./domain/webhooks/burst";
export { WebhookEndpoint } from "./domain/webhooks/endpoint-lane";

const app = createApp();

/** Events left in the outbox this long were missed by their request's dispatch (a crash): the sweeper sends them. */
const sweepAfterMs = 10_000;

export default {
  fetch: app.fetch,
  async queue(batch, env) {
    const db = drizzle(env.DB);
    if (batch.queue.startsWith("crm-events-")) await fanOut(db, env, batch as MessageBatch<EventMessage>);
    else if (batch.queue.startsWith("crm-deliveries-")) await deliverBatch(db, env, batch as MessageBatch<DeliveryMessage>);
  },
  async scheduled(_controller, env) {
    const db = drizzle(env.DB);
    await Promise.all([purgeExpiredIdempotencyKeys(db), dispatchOutbox(db, env, sweepAfterMs)]);
  },
} satisfies ExportedHandler<RegionEnv, EventMessage | DeliveryMessage>;
