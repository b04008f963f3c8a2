import type { Context } from "hono";
import type { AppEnv } from "./env";
import { shardDatabase } from "./shards";

/** Serves the rest of the request from `shard`: services read its database as `c.var.db`. */
export function useShard(c: Context<AppEnv>, shard: number): void {
  c.set("shard", shard);
  c.set("db", shardDatabase(c.env, shard).db);
}
