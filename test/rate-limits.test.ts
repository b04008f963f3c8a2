import { newId } from "@crm/db";
import { describe, expect, it } from "vitest";
import { createKey, createOrganization } from "./fixtures";
import { call } from "./stack";

interface RateLimitedBody {
  error: { code: string; message: string; retryAfterMs: number; details: { scope: string; limit: number; windowMs: number } };
}

describe("rate limits over HTTP", () => {
  it("admits exactly 120 of 125 requests to one route, and the refusals leave the key 60 for other routes", async () => {
    const { key } = await createOrganization();
    const responses = await Promise.all(Array.from({ length: 125 }, () => call("/workspaces", { key })));
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(120);
    expect(statuses.filter((status) => status === 429)).toHaveLength(5);

    const refused = responses.find((response) => response.status === 429) as Response;
    const body = (await refused.json()) as RateLimitedBody;
    expect(body.error.code).toBe("rate_limited");
    expect(body.error.message).toBe("Public API rate limit exceeded");
    expect(body.error.details).toEqual({ scope: "route", limit: 120, windowMs: 60_000 });
    expect(body.error.retryAfterMs).toBeGreaterThan(0);
    expect(body.error.retryAfterMs).toBeLessThanOrEqual(60_000);
    expect(refused.headers.get("retry-after")).toBe(String(Math.ceil(body.error.retryAfterMs / 1000)));
    expect(refused.headers.get("ratelimit-policy")).toBe('"route";q=120;w=60');
    expect(refused.headers.get("ratelimit")).toMatch(/^"route";r=0;t=\d+$/);

    // The key and identity windows (180) hold the 120 admitted requests only: 60 remain.
    let admitted = 0;
    for (let i = 0; i < 61; i++) {
      const response = await call("/usage", { key });
      if (response.status === 200) admitted++;
      else {
        expect(response.status).toBe(429);
        const { error } = (await response.json()) as RateLimitedBody;
        expect(["api_key", "identity"]).toContain(error.details.scope);
      }
    }
    expect(admitted).toBe(60);
  });

  it("advertises the tightest window on every authenticated response", async () => {
    const { key } = await createOrganization();
    const first = await call("/workspaces", { key });
    expect(first.headers.get("ratelimit-policy")).toBe('"route";q=120;w=60');
    expect(first.headers.get("ratelimit")).toMatch(/^"route";r=119;t=(59|60)$/);
    const second = await call("/workspaces", { key });
    expect(second.headers.get("ratelimit")).toMatch(/^"route";r=118;t=\d+$/);
  });

  it("counts failed authentications per client IP and refuses the 61st before any lookup", async () => {
    const ip = `198.51.100.${Math.floor(Math.random() * 250)}`;
    const statuses: number[] = [];
    for (let i = 0; i < 61; i++) {
      const response = await call("/workspaces", {
        key: `crm_${"A".repeat(11)}${i % 10}_${"b".repeat(43)}`,
        headers: { "cf-connecting-ip": ip },
      });
      statuses.push(response.status);
    }
    expect(statuses.slice(0, 60).every((status) => status === 401)).toBe(true);
    expect(statuses[60]).toBe(429);
    const missing = await call("/workspaces", { headers: { "cf-connecting-ip": ip } });
    expect(missing.status).toBe(429);
    const { error } = (await missing.json()) as RateLimitedBody;
    expect(error.details).toEqual({ scope: "ip", limit: 60, windowMs: 60_000 });
    // Another client is not affected.
    expect((await call("/workspaces", { headers: { "cf-connecting-ip": "198.51.100.251" } })).status).toBe(401);
  });

  it("does not count a valid key against its client IP", async () => {
    const ip = "203.0.113.99";
    // 65 keys, each looked up once (a cached key would not reach the IP window's guard at all).
    const organizations = await Promise.all(Array.from({ length: 65 }, () => createOrganization()));
    for (const { key } of organizations) {
      expect((await call("/workspaces", { key, headers: { "cf-connecting-ip": ip } })).status).toBe(200);
    }
  });

  it("counts the failed authentications of an IPv6 client per /64, not per address", async () => {
    const hex = () => crypto.randomUUID().slice(0, 4);
    const prefix = `2001:db8:${hex()}:${hex()}`;
    for (let i = 0; i < 60; i++) {
      const response = await call("/workspaces", { headers: { "cf-connecting-ip": `${prefix}:${i.toString(16)}::${hex()}` } });
      expect(response.status).toBe(401);
    }
    // Another address of the same /64, spelled out in full and in capitals: the window is full.
    const sameNetwork = await call("/workspaces", {
      headers: { "cf-connecting-ip": `${prefix}:ffff:ffff:ffff:ffff`.toUpperCase() },
    });
    expect(sameNetwork.status).toBe(429);
    // The neighbouring /64 is another client.
    const neighbour = `2001:db8:${hex()}:${hex()}::1`;
    expect((await call("/workspaces", { headers: { "cf-connecting-ip": neighbour } })).status).toBe(401);
  });
});

describe("the workspace window across organizations", () => {
  const workspaceRoute = (path: string, workspaceId: string) => `${path}?workspaceId=${workspaceId}`;

  it("neither charges a workspace's window for another organization's requests nor shows it that window", async () => {
    const victim = await createOrganization({ workspaceCount: 1 });
    const workspaceId = victim.workspaceIds[0] as string;
    const attacker = await createOrganization();
    const agent = () => createKey({ organizationId: attacker.organizationId, ownerType: "agent", ownerId: newId("agt") });

    // 200 requests naming the victim's workspace, from two identities over two routes (each under its own limits).
    const [first, second] = [attacker.key, (await agent()).key];
    const hammering = await Promise.all([
      ...Array.from({ length: 100 }, () => call(workspaceRoute("/crm/objects", workspaceId), { key: first })),
      ...Array.from({ length: 100 }, () => call(workspaceRoute("/tasks", workspaceId), { key: second })),
    ]);
    expect(hammering.every((response) => response.status === 404)).toBe(true);

    // The victim's budget is untouched: its tightest window is still its route, one request in.
    const own = await call(workspaceRoute("/crm/objects", workspaceId), { key: victim.key });
    expect(own.status).toBe(200);
    expect(own.headers.get("ratelimit")).toMatch(/^"route";r=119;t=\d+$/);
    for (let i = 0; i < 20; i++) await call(workspaceRoute("/crm/objects", workspaceId), { key: victim.key });

    // A fresh identity of the attacker sees only its organization's own count: 201 of 300, not the victim's 21 on top.
    const probe = await call(workspaceRoute("/webhooks", workspaceId), { key: (await agent()).key });
    expect(probe.status).toBe(404);
    expect(probe.headers.get("ratelimit")).toMatch(/^"workspace";r=99;t=\d+$/);
  });
});
