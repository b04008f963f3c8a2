import { env } from "cloudflare:test";
import { control } from "@crm/db";
import { eq, inArray } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { describe, expect, it } from "vitest";
import { apiKeyFromBytes, apiKeyPrefix, hashApiKey } from "../workers/gateway/src/api-keys";
import { errorOf } from "./crm";
import { createKey, createOrganization } from "./fixtures";
import { call, cast, eventually } from "./stack";

const db = () => drizzle(env.CONTROL_DB);

describe("API keys", () => {
  it("have the format crm_<12-char prefix>_<base62 secret of 32 bytes>", () => {
    const { key, prefix } = apiKeyFromBytes(crypto.getRandomValues(new Uint8Array(41)));
    expect(key).toMatch(/^crm_[0-9A-Za-z]{12}_[0-9A-Za-z]{43}$/);
    expect(apiKeyPrefix(key)).toBe(prefix);
    expect(apiKeyPrefix(`${key}x`)).toBeNull();
  });

  it("are stored as a hash only", async () => {
    const { alice } = await cast();
    const rows = await db().select().from(control.apiKeys);
    const stored = JSON.stringify(rows);
    expect(stored).not.toContain(alice.apiKey);
    expect(stored).not.toContain(alice.apiKey.split("_")[2]);
    expect(rows.map((row) => row.secretHash)).toContain(await hashApiKey(alice.apiKey));
  });

  it("record lastUsedAt and an activity row (time, route, status, IP) for each use", async () => {
    const { organizationId, userId } = await createOrganization();
    const { key, id } = await createKey({ organizationId, ownerId: userId });
    const before = Date.now();
    await call("/workspaces", { key, headers: { "cf-connecting-ip": "203.0.113.7" } });
    await call("/workspaces?limit=0", { key });
    const activity = await eventually(
      () => db().select().from(control.apiKeyActivity).where(eq(control.apiKeyActivity.apiKeyId, id)),
      (rows) => rows.length === 2,
    );
    expect(activity.map((row) => [row.method, row.route, row.status]).sort()).toEqual([
      ["GET", "/workspaces", 200],
      ["GET", "/workspaces", 400],
    ]);
    expect(activity.find((row) => row.status === 200)?.ip).toBe("203.0.113.7");
    expect(activity.every((row) => row.at >= before)).toBe(true);
    const [stored] = await db().select().from(control.apiKeys).where(eq(control.apiKeys.id, id));
    expect(stored?.lastUsedAt).toBeGreaterThanOrEqual(before);
  });

  it("keep only the activity the key's page shows: each key its latest 50 uses, keys written together", async () => {
    const keys = await Promise.all(
      [1, 2].map(async () => {
        const { organizationId, userId } = await createOrganization();
        return createKey({ organizationId, ownerId: userId });
      }),
    );
    // Both keys' uses interleaved, so that one flush writes (and prunes) both: two rounds, 40 and then
    // 30 more each once the first are written (the prune runs with each write).
    const use = (count: number) =>
      Promise.all(Array.from({ length: count }, (_, i) => call("/workspaces", { key: keys[i % 2]?.key as string })));
    const rowsOf = () =>
      db()
        .select()
        .from(control.apiKeyActivity)
        .where(
          inArray(
            control.apiKeyActivity.apiKeyId,
            keys.map((key) => key.id),
          ),
        );
    const perKey = (rows: { apiKeyId: string; at: number }[], since = 0) =>
      keys.map((key) => rows.filter((row) => row.apiKeyId === key.id && row.at >= since).length);
    await use(80);
    await eventually(rowsOf, (rows) => rows.length === 80);
    const secondRound = Date.now();
    await use(60);
    const kept = await eventually(rowsOf, (rows) => perKey(rows, secondRound).every((count) => count === 30));
    // The newest are kept: all 30 of the second round, and the latest 20 of the first, for each key.
    expect(perKey(kept)).toEqual([50, 50]);
    const stored = await db()
      .select()
      .from(control.apiKeys)
      .where(
        inArray(
          control.apiKeys.id,
          keys.map((key) => key.id),
        ),
      );
    expect(stored.map((key) => key.lastUsedAt ?? 0).every((at) => at >= secondRound)).toBe(true);
  });

  it("reach only the workspaces of their limit", async () => {
    const { acme, sales } = await cast();
    const response = await call("/workspaces", { key: acme.readOnlyKey });
    const body = (await response.json()) as { data: { id: string }[] };
    expect(body.data.map((workspace) => workspace.id)).toEqual([sales.id]);
  });

  it("stop working once expired or revoked, and when the owner leaves the organization", async () => {
    const { organizationId, userId } = await createOrganization();
    const expiring = await createKey({ organizationId, ownerId: userId, expiresAt: Date.now() + 60_000 });
    expect((await call("/workspaces", { key: expiring.key })).status).toBe(200);
    const expired = await createKey({ organizationId, ownerId: userId, expiresAt: Date.now() - 1 });
    const revoked = await createKey({ organizationId, ownerId: userId, revokedAt: Date.now() - 1 });
    for (const { key } of [expired, revoked]) {
      const response = await call("/workspaces", { key });
      expect(response.status).toBe(401);
      expect((await errorOf(response)).code).toBe("invalid_token");
    }
    const other = await createOrganization();
    const leaver = await createKey({ organizationId: other.organizationId, ownerId: userId });
    expect((await call("/workspaces", { key: leaver.key })).status).toBe(401);
  });
});

describe("workspace visibility by actor", () => {
  it("shows members their workspaces with their role, and agents every workspace with a null role", async () => {
    const { acme, bob, carol } = await cast();
    const list = async (key: string) =>
      (
        (await (await call("/workspaces", { key })).json()) as {
          data: { name: string; role: string | null; isInheritedAccess: boolean }[];
        }
      ).data.map((workspace) => [workspace.name, workspace.role, workspace.isInheritedAccess]);
    expect(await list(bob.apiKey)).toEqual([
      ["Sales", "member", false],
      ["Support", "member", false],
    ]);
    expect(await list(carol.apiKey)).toEqual([
      ["Sales", "viewer", false],
      ["Support", "viewer", false],
    ]);
    expect(await list(acme.agentApiKey as string)).toEqual([
      ["Sales", null, true],
      ["Support", null, true],
    ]);
  });

  it("hides workspaces a member does not belong to", async () => {
    const { acme } = await cast();
    const outsider = await createOrganization();
    // A member of Acme with no workspace membership sees none of its workspaces.
    await db()
      .insert(control.organizationMembers)
      .values({ organizationId: acme.id, userId: outsider.userId, role: "member", createdAt: Date.now() });
    const { key } = await createKey({ organizationId: acme.id, ownerId: outsider.userId });
    const body = (await (await call("/workspaces", { key })).json()) as { data: unknown[] };
    expect(body.data).toEqual([]);
  });
});
