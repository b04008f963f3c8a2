import { shardBinding, shardsOf } from "@crm/contracts";
import { databaseOf } from "@crm/db";
import type { RegionBindings } from "./bindings";
import type { ShardDatabase } from "./database";

/**
 * The database of one of this region's shards. Which shard serves a request comes from what the
 * gateway signed (the actor context, an internal request's claims, a queue message this region wrote),
 * never from the client; a shard this region does not bind means the gateway and the region were
 * deployed with different layouts, a server fault.
 */
export function shardDatabase(env: RegionBindings, shard: number): ShardDatabase {
  const database = shardsOf(env.REGION).includes(shard) ? env[shardBinding(shard) as `DB_${number}`] : undefined;
  if (!database) throw new Error(`Region ${env.REGION} has no shard ${shard}`);
  return { shard, db: databaseOf(database) };
}

/** Every shard of this region, in order: the cron sweeps each. */
export const everyShard = (env: RegionBindings): ShardDatabase[] =>
  shardsOf(env.REGION).map((shard) => shardDatabase(env, shard));

/**
 * Splits a queue batch by the shard its messages name, each part a batch of its own, so that a
 * consumer written for one database serves a region of several.
 */
export function batchesByShard<Body extends { shard: number }>(batch: MessageBatch<Body>): [number, MessageBatch<Body>][] {
  return [...Map.groupBy(batch.messages, (message) => message.body.shard)].map(([shard, messages]) => [
    shard,
    {
      queue: batch.queue,
      metadata: batch.metadata,
      messages,
      ackAll: () => {
        for (const message of messages) message.ack();
      },
      retryAll: (options) => {
        for (const message of messages) message.retry(options);
      },
    },
  ]);
}
