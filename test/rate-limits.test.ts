import { describe, expect, it } from "vitest";
import { createOrganization } from "./fixtures";
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
    for (let i = 0; i < 65; i++) {
      const { key } = await createOrganization();
      expect((await call("/workspaces", { key, headers: { "cf-connecting-ip": ip } })).status).toBe(200);
    }
  });
});
