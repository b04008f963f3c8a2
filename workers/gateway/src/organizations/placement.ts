import { type Region, shardsOf } from "@crm/contracts";
import { control } from "@crm/db";
import { count, eq } from "drizzle-orm";
import type { DrizzleD1Database } from "drizzle-orm/d1";

const { organizations } = control;

/**
 * The least-filled of `shards`: the one with the fewest organizations, the lowest number on a tie
 * (so a shard just added fills first, and placement is the same on every run of the seed).
 */
export function leastFilledShard(shards: readonly number[], organizationsPerShard: ReadonlyMap<number, number>): number {
  let chosen: { shard: number; organizations: number } | undefined;
  for (const shard of shards) {
    const placed = organizationsPerShard.get(shard) ?? 0;
    if (!chosen || placed < chosen.organizations) chosen = { shard, organizations: placed };
  }
  if (!chosen) throw new Error("A region without shards cannot hold an organization");
  return chosen.shard;
}

/**
 * The shard a new organization of `region` goes to: every creation path (the demo seed today) asks
 * this before writing the organization's row. By organization count: sizes are not known up front,
 * and a shard grown too large is split by moving organizations (docs/deploy.md). Two creations at
 * the same moment can pick the same shard; balance is a goal, not an invariant.
 */
export async function placeOrganization(db: DrizzleD1Database, region: Region): Promise<number> {
  const rows = await db
    .select({ shard: organizations.shard, organizations: count() })
    .from(organizations)
    .where(eq(organizations.region, region))
    .groupBy(organizations.shard);
  return leastFilledShard(shardsOf(region), new Map(rows.map((row) => [row.shard, row.organizations])));
}
