import { type Region, signToken } from "@crm/contracts";
import { control, runBatch } from "@crm/db";
import { eq, isNull } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { DrizzleD1Database } from "drizzle-orm/d1";
import { Hono } from "hono";
import { contextSecret, type GatewayAppEnv, regionService } from "../env";
import { hashPassword } from "../identity/passwords";
import { placeOrganization } from "../organizations/placement";
import { gatewayCall } from "../pipeline/operation-call";
import { newRequestFacts } from "../request-facts";
import { demoApiKey, demoId, demoKeys, demoOrganizations, demoPassword, demoUser } from "./demo";
import { seedDemoMeetings } from "./demo-meetings";
import { demoOAuthClientRows, usersWithPasswords } from "./identity";

/** Fixed times keep the seed byte-identical on every run. */
const seededAt = Date.UTC(2026, 0, 5);
const expiredAt = Date.UTC(2026, 1, 1);

/**
 * The shard of a demo organization: the one it already has, or, the first time, the least-filled
 * shard of its region, with the organization's row written at once so that the next placement
 * counts it (Acme and Initech, both us, land on different shards of a fresh stack).
 */
async function placeDemoOrganization(
  db: DrizzleD1Database,
  organization: { id: string; name: string; region: Region },
): Promise<number> {
  const [existing] = await db
    .select({ shard: control.organizations.shard })
    .from(control.organizations)
    .where(eq(control.organizations.id, organization.id));
  if (existing) return existing.shard;
  const shard = await placeOrganization(db, organization.region);
  await db
    .insert(control.organizations)
    .values({ ...organization, shard, createdAt: seededAt })
    .onConflictDoNothing();
  return shard;
}

/**
 * `POST /__dev/seed`: the local-development demo data (DESIGN.md section 13). In the local stack
 * only (`dev-routes.ts`). Writes the control plane here, asks each region to create its workspaces, and
 * answers with what `.dev/demo.json` holds. Idempotent: rows that exist are left as they are (a
 * user seeded without a password gets one).
 */
export const seedRoutes = new Hono<GatewayAppEnv>().post("/seed", async (c) => {
  // Demo ids and keys derive from a local secret that stays put between runs; the us context secret is one.
  const secret = contextSecret(c.env, "us");
  const db = c.var.controlDb;
  const statements: BatchItem<"sqlite">[] = [];
  // A guest's membership names a user that an organization later in the list creates.
  const guestMemberships: BatchItem<"sqlite">[] = [];
  const organizations = [];
  const passwords = new Map<string, string>();
  // PBKDF2 costs real time: a re-run hashes no password that is already stored.
  const demoUserIds = demoOrganizations.flatMap((organization) =>
    organization.users.map((user) => demoId(secret, "usr", user.label)),
  );
  const hashedPasswords = await usersWithPasswords(db, await Promise.all(demoUserIds));

  for (const organization of demoOrganizations) {
    const organizationId = await demoId(secret, "org", organization.label);
    const shard = await placeDemoOrganization(db, { id: organizationId, name: organization.name, region: organization.region });
    const workspaceIds = new Map<string, string>();
    const mailboxIds = new Map<string, string>();
    for (const workspace of organization.workspaces) {
      const workspaceId = await demoId(secret, "ws", workspace.label);
      workspaceIds.set(workspace.label, workspaceId);
      mailboxIds.set(workspace.label, await demoId(secret, "mbx", workspace.label));
      // The address → organization map the gateway's email() handler routes inbound mail by.
      statements.push(
        db
          .insert(control.mailboxes)
          .values({ address: workspace.mailbox, organizationId, workspaceId, createdAt: seededAt })
          .onConflictDoNothing(),
      );
    }
    const ownerIds = new Map<string, string>();
    for (const user of organization.users) {
      const userId = await demoId(secret, "usr", user.label);
      ownerIds.set(user.label, userId);
      const password = await demoPassword(secret, user.label);
      passwords.set(user.label, password);
      const values = { id: userId, email: user.email, name: user.name, createdAt: seededAt };
      const passwordHash = hashedPasswords.has(userId) ? null : await hashPassword(password);
      statements.push(
        passwordHash === null
          ? db.insert(control.users).values(values).onConflictDoNothing()
          : db
              .insert(control.users)
              .values({ ...values, passwordHash })
              // A user seeded before passwords existed gets one; a hash already there stays.
              .onConflictDoUpdate({
                target: control.users.id,
                set: { passwordHash },
                setWhere: isNull(control.users.passwordHash),
              }),
        db
          .insert(control.organizationMembers)
          .values({ organizationId, userId, role: user.organizationRole, createdAt: seededAt })
          .onConflictDoNothing(),
      );
    }
    for (const guest of organization.guests ?? []) {
      const userId = await demoId(secret, "usr", guest.label);
      ownerIds.set(guest.label, userId);
      guestMemberships.push(
        db
          .insert(control.organizationMembers)
          .values({ organizationId, userId, role: guest.organizationRole, createdAt: seededAt })
          .onConflictDoNothing(),
      );
    }
    if (organization.agent) {
      const agentId = await demoId(secret, "agt", organization.agent.label);
      ownerIds.set(organization.agent.label, agentId);
      statements.push(
        db
          .insert(control.agents)
          .values({ id: agentId, organizationId, name: organization.agent.name, createdAt: seededAt })
          .onConflictDoNothing(),
      );
    }

    const keys = new Map<string, string>();
    for (const spec of demoKeys(organization)) {
      const { key, prefix, secretHash } = await demoApiKey(secret, spec.label);
      keys.set(spec.label, key);
      statements.push(
        db
          .insert(control.apiKeys)
          .values({
            id: await demoId(secret, "key", spec.label),
            organizationId,
            ownerType: spec.ownerType,
            ownerId: ownerIds.get(spec.ownerLabel) as string,
            name: spec.name,
            prefix,
            secretHash,
            scopes: [...spec.scopes],
            workspaceIds: spec.workspaceLabels?.map((label) => workspaceIds.get(label) as string) ?? null,
            expiresAt: spec.state === "expired" ? expiredAt : null,
            revokedAt: spec.state === "revoked" ? seededAt : null,
            createdAt: seededAt,
          })
          .onConflictDoNothing(),
      );
    }

    const regionSeed = {
      purpose: "seed",
      shard,
      issuedAt: Date.now(),
      createdAt: seededAt,
      workspaces: organization.workspaces.map((workspace) => ({
        id: workspaceIds.get(workspace.label) as string,
        organizationId,
        name: workspace.name,
        description: workspace.description,
        mailbox: { id: mailboxIds.get(workspace.label) as string, address: workspace.mailbox, name: workspace.name },
        members: [...organization.users, ...(organization.guests ?? [])].flatMap((user) => {
          const membership = user.memberships[workspace.label];
          return membership ? [{ userId: ownerIds.get(user.label) as string, ...membership }] : [];
        }),
      })),
    };
    const region = regionService(c.env, organization.region);
    organizations.push({ organizationId, organization, shard, workspaceIds, ownerIds, keys, region, regionSeed });
  }

  const organizationIds = new Map(organizations.map(({ organization, organizationId }) => [organization.label, organizationId]));
  const oauth = await demoOAuthClientRows(db, secret, organizationIds);
  await runBatch(db, [...statements, ...guestMemberships, ...oauth.statements]);
  for (const { organization, region, regionSeed } of organizations) {
    const response = await region.fetch(`https://api.${organization.region}.internal/__dev/seed`, {
      method: "POST",
      body: await signToken(regionSeed, contextSecret(c.env, organization.region)),
    });
    if (!response.ok)
      throw new Error(`Seeding region ${organization.region} failed with ${response.status}: ${await response.text()}`);
  }

  const origin = new URL(c.req.url).origin;
  // The demo's signed events are operations of their own, not facts of this request's log line.
  const call = { ...gatewayCall(c), requestFacts: newRequestFacts() };
  for (const { organization, workspaceIds, keys } of organizations) {
    const owner = organization.users.find((user) => user.label === organization.meetingsOwner);
    const workspaceId = workspaceIds.get(organization.meetingsWorkspace ?? "");
    if (!owner || !workspaceId) continue;
    // The demo people of the workspace's content (demo-data.ts in the regional Worker) carry its id's tail.
    const suffix = workspaceId.slice(-6);
    await seedDemoMeetings(call, {
      origin,
      ownerKey: keys.get(owner.label) as string,
      ownerEmail: owner.email,
      workspaceId,
      customerEmail: `peter@${suffix}.example`,
      prospectEmail: `gavin@${suffix}.example`,
    });
  }

  return c.json({
    baseUrl: `${origin}/api/v1`,
    organizations: organizations.map(({ organizationId, organization, shard, workspaceIds, ownerIds, keys }) => ({
      id: organizationId,
      name: organization.name,
      region: organization.region,
      shard,
      workspaces: organization.workspaces.map((workspace) => ({
        id: workspaceIds.get(workspace.label),
        name: workspace.name,
        mailbox: workspace.mailbox,
      })),
      users: [
        ...organization.users.map((user) => ({
          id: ownerIds.get(user.label),
          name: user.name,
          email: user.email,
          organizationRole: user.organizationRole,
          password: passwords.get(user.label),
          apiKey: keys.get(user.label),
        })),
        // A guest is listed without a key or password: both are on their home organization's entry.
        ...(organization.guests ?? []).map((guest) => {
          const { name, email } = demoUser(guest.label);
          return { id: ownerIds.get(guest.label), name, email, organizationRole: guest.organizationRole };
        }),
      ],
      ...(organization.agent
        ? {
            agent: { id: ownerIds.get(organization.agent.label), name: organization.agent.name },
            agentApiKey: keys.get(organization.agent.label),
          }
        : {}),
      ...(keys.has("alice-read-only")
        ? {
            readOnlyKey: keys.get("alice-read-only"),
            expiredKey: keys.get("alice-expired"),
            revokedKey: keys.get("alice-revoked"),
          }
        : {}),
    })),
    oauthClients: oauth.clients,
  });
});
