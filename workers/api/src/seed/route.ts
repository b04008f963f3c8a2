import { ApiError, verifyToken } from "@crm/contracts";
import { regional, runBatch } from "@crm/db";
import { inArray } from "drizzle-orm";
import { Hono } from "hono";
import { regionConfig } from "../config";
import { createWorkspaceStatements, type NewWorkspace } from "../domain/workspaces";
import type { AppEnv } from "../env";
import { shardDatabase } from "../shards";
import { seedDemoContent } from "./demo-data";

interface RegionSeed {
  purpose: "seed";
  issuedAt: number;
  /** The organization's shard in this region, placed by the gateway. */
  shard: number;
  /** Creation time of the demo rows: fixed, so that a re-seed writes identical data. */
  createdAt: number;
  workspaces: (NewWorkspace & { mailbox: { id: string; address: string; name: string } })[];
}

/**
 * Local-development seed, in the local stack only (`local.ts`) and only with a payload the gateway
 * signed. Creates the demo workspaces through the same code path as any workspace; idempotent.
 */
export const seedRoutes = new Hono<AppEnv>().post("/seed", async (c) => {
  const seed = (await verifyToken(await c.req.text(), regionConfig(c.env).gatewayContextSecret)) as RegionSeed | null;
  if (seed?.purpose !== "seed" || Math.abs(Date.now() - seed.issuedAt) > 60_000) {
    throw new ApiError("unauthorized", "Seed payloads must be signed by the gateway");
  }
  const { db } = shardDatabase(c.env, seed.shard);
  const ids = seed.workspaces.map((workspace) => workspace.id);
  const existing = new Set(
    (await db.select({ id: regional.workspaces.id }).from(regional.workspaces).where(inArray(regional.workspaces.id, ids))).map(
      (row) => row.id,
    ),
  );
  // Creation times one millisecond apart give the demo workspaces a fixed order.
  // A workspace seeded by an earlier version of the seed still gains the members and mailbox added since.
  const statements = seed.workspaces.flatMap((workspace, index) =>
    existing.has(workspace.id)
      ? workspace.members.map((member) =>
          db
            .insert(regional.workspaceMembers)
            .values({ ...member, workspaceId: workspace.id, createdAt: seed.createdAt })
            .onConflictDoNothing(),
        )
      : createWorkspaceStatements(db, workspace, seed.createdAt + index),
  );
  const mailboxStatements = seed.workspaces.map(({ id, mailbox }) =>
    db
      .insert(regional.mailboxes)
      .values({ ...mailbox, workspaceId: id, createdAt: seed.createdAt })
      .onConflictDoNothing(),
  );
  await runBatch(db, [...statements, ...mailboxStatements]);
  // Demo content goes into new workspaces that have an owner among their members.
  for (const workspace of seed.workspaces) {
    const owner = workspace.members.find((member) => member.role === "owner");
    if (!existing.has(workspace.id) && owner) {
      await seedDemoContent(db, c.env.ATTACHMENTS, {
        id: workspace.id,
        organizationId: workspace.organizationId,
        ownerId: owner.userId,
        mailbox: workspace.mailbox.address,
      });
    }
  }
  return c.json({ created: seed.workspaces.length - existing.size, region: regionConfig(c.env).region });
});
