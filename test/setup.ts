import { env } from "cloudflare:test";
import { shardsOf } from "@crm/contracts";
import { regional } from "@crm/db";
import { applyMigrations } from "@crm/db/migrations";
import { inArray } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { afterAll } from "vitest";
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

// The files of a pool worker share its stack (vitest.config.ts). A subscription a file leaves in the
// demo's workspaces would turn every later file's writes there into deliveries that drain those
// workspaces' burst buckets (350 a minute) under tests that wait for a delivery: each file's are
// switched off when it ends (a lane reads its subscription at least once a second).
afterAll(async () => {
  const now = Date.now();
  for (const { region, shard, workspaces } of (await demo()).organizations)
    await drizzle(shardDatabase(region, shard))
      .update(regional.webhooks)
      .set({ isActive: false, updatedAt: now })
      .where(
        inArray(
          regional.webhooks.workspaceId,
          workspaces.map((workspace) => workspace.id),
        ),
      );
});
