import type { Region } from "./actor-context";

/**
 * How many D1 shards each region's data plane has. An organization lives in one shard of its
 * region (the control D1 says which); a regional Worker binds every shard of its region and serves
 * each request from the one its signed actor context names. This is the one place the layout is
 * written: the regional Workers' wrangler configuration, the gateway's placement of new
 * organizations, tests, dev and deploy all read it. Shards are numbered from 1; add one by raising
 * a count (docs/deploy.md), never by renumbering.
 */
export const regionShards: Readonly<Record<Region, number>> = { us: 2, eu: 1 };

/** The shards of a region, 1 to its count. */
export const shardsOf = (region: Region): number[] => Array.from({ length: regionShards[region] }, (_, index) => index + 1);

/** The regional Worker's D1 binding of a shard. */
export const shardBinding = (shard: number): string => `DB_${shard}`;

/** The D1 database of a shard, as `wrangler d1 create` names it. */
export const shardDatabaseName = (region: Region, shard: number): string => `crm-${region}-${shard}`;
