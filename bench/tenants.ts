// Tenants for the scale simulation (bench/scale.mjs), written as the demo seed writes organizations:
// the control plane's rows, placed in a shard by the gateway's own `placeOrganization`, and one
// workspace in that shard. Bundled for Node by scripts/bench.mjs; D1 comes from miniflare's proxies.
import { type Region, scopes } from "@crm/contracts";
import { control, newId, regional } from "@crm/db";
import { drizzle } from "drizzle-orm/d1";
import { generateApiKey, hashApiKey } from "../workers/gateway/src/api-keys";
import { placeOrganization } from "../workers/gateway/src/organizations/placement";

export interface Tenant {
  organizationId: string;
  region: Region;
  shard: number;
  workspaceId: string;
  apiKey: string;
}

/** One organization with an owner, the owner's full-scope key and a workspace, in the least-filled shard of `region`. */
export async function createTenant(
  controlDatabase: D1Database,
  shardDatabase: (region: Region, shard: number) => Promise<D1Database>,
  { name, region }: { name: string; region: Region },
): Promise<Tenant> {
  const db = drizzle(controlDatabase);
  const organizationId = newId("org");
  const userId = newId("usr");
  const now = Date.now();
  const shard = await placeOrganization(db, region);
  const { key, prefix } = generateApiKey();
  await db.batch([
    db.insert(control.organizations).values({ id: organizationId, name, region, shard, createdAt: now }),
    db.insert(control.users).values({ id: userId, email: `${userId}@scale.example`, name: `${name} owner`, createdAt: now }),
    db.insert(control.organizationMembers).values({ organizationId, userId, role: "owner", createdAt: now }),
    db.insert(control.apiKeys).values({
      id: newId("key"),
      organizationId,
      ownerType: "user",
      ownerId: userId,
      name: "scale simulation",
      prefix,
      secretHash: await hashApiKey(key),
      scopes: [...scopes],
      workspaceIds: null,
      expiresAt: null,
      revokedAt: null,
      createdAt: now,
    }),
  ]);
  const workspaceId = newId("ws");
  await drizzle(await shardDatabase(region, shard))
    .insert(regional.workspaces)
    .values({ id: workspaceId, organizationId, name: "Main", createdAt: now, updatedAt: now });
  return { organizationId, region, shard, workspaceId, apiKey: key };
}
