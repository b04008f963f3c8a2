import type { Hono } from "hono";
import type { Database } from "./database";
import { pruneEvents } from "./domain/events-feed/stored-events";
import { purgeAbandonedSends } from "./domain/inbox/mail/send";
import { deliverBatch } from "./domain/webhooks/deliver";
import { dispatchOutbox } from "./domain/webhooks/dispatch";
import { fanOut } from "./domain/webhooks/fanout";
import type { DeliveriesQueueMessage, EventsMessage } from "./domain/webhooks/messages";
import type { AppEnv, RegionEnv } from "./env";
import { purgeExpiredIdempotencyKeys } from "./idempotency";
import { batchesByShard, everyShard, shardDatabase } from "./shards";

/** Events left in the outbox this long were missed by their request's dispatch (a crash): the sweeper sends them. */
const sweepAfterMs = 10_000;

/** Runs `consume` on each shard's part of a batch, all of them, then fails if any failed (its messages come back). */
async function consumePerShard<Body extends { shard: number }>(
  env: RegionEnv,
  batch: MessageBatch<Body>,
  consume: (db: Database, part: MessageBatch<Body>) => Promise<void>,
): Promise<void> {
  const outcomes = await Promise.allSettled(
    batchesByShard(batch).map(([shard, part]) => consume(shardDatabase(env, shard).db, part)),
  );
  const failed = outcomes.find((outcome) => outcome.status === "rejected");
  if (failed) throw failed.reason;
}

/** The regional Worker of an app: its HTTP routes, the queues' consumers (every shard's messages) and the cron sweeps. */
export const regionalWorker = (app: Hono<AppEnv>) =>
  ({
    fetch: app.fetch,
    // One queue per region carries every shard's messages; each names its shard.
    async queue(batch, env) {
      if (batch.queue.startsWith("crm-events-")) {
        await consumePerShard(env, batch as MessageBatch<EventsMessage>, (db, part) => fanOut(db, env, part));
      } else if (batch.queue.startsWith("crm-deliveries-")) {
        await consumePerShard(env, batch as MessageBatch<DeliveriesQueueMessage>, (db, part) => deliverBatch(db, env, part));
      }
    },
    async scheduled(_controller, env) {
      await Promise.all(
        everyShard(env).flatMap((shard) => [
          purgeExpiredIdempotencyKeys(shard.db),
          purgeAbandonedSends(shard.db),
          dispatchOutbox(shard, env, sweepAfterMs),
          pruneEvents(shard.db),
        ]),
      );
    },
  }) satisfies ExportedHandler<RegionEnv, EventsMessage | DeliveriesQueueMessage>;
