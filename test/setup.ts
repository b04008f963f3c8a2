import { env } from "cloudflare:test";
import { shardsOf } from "@crm/contracts";
import { applyMigrations } from "@crm/db/migrations";
import { shardDatabase } from "./fixtures";
import { demo } from "./stack";

// Storage is shared by the test files of a run; migrations and the seed are both idempotent.
await applyMigrations(env.CONTROL_DB, env.CONTROL_MIGRATIONS);
for (const region of ["us", "eu"] as const) {
  for (const shard of shardsOf(region)) await applyMigrations(shardDatabase(region, shard), env.REGIONAL_MIGRATIONS);
}
// The demo organizations are placed before any test makes one of its own: on a fresh stack Acme and
// Initech take the two us shards, whatever order the files run in.
await demo();
