import type { DrizzleD1Database } from "drizzle-orm/d1";

/** A shard's D1 database, as drizzle reads and writes it; `$client` is its D1 binding (compiled statements run on it directly). */
export type Database = DrizzleD1Database & { $client: D1Database };

/** A shard's database, with its number: what the shard's events and deliveries carry in their queue messages. */
export interface ShardDatabase {
  shard: number;
  db: Database;
}
