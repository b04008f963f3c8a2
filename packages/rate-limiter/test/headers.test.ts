import { describe, expect, it } from "vitest";
import { rateLimitHeaders } from "../src/headers";

describe("rateLimitHeaders", () => {
  it("writes the policy and the current service limit as Structured Field items", () => {
    expect(rateLimitHeaders({ scope: "route", limit: 120, remaining: 7, resetSeconds: 12, windowMs: 60_000 })).toEqual({
      "RateLimit-Policy": '"route";q=120;w=60',
      RateLimit: '"route";r=7;t=12',
    });
  });

  it("never advertises a zero-second window", () => {
    const headers = rateLimitHeaders({ scope: "ip", limit: 1, remaining: 0, resetSeconds: 1, windowMs: 250 });
    expect(headers["RateLimit-Policy"]).toBe('"ip";q=1;w=1');
  });

  it("can be set on a Response as is", () => {
    const headers = rateLimitHeaders({ scope: "api_key", limit: 180, remaining: 179, resetSeconds: 60, windowMs: 60_000 });
    const response = new Response(null, { headers: { ...headers } });
    expect(response.headers.get("ratelimit")).toBe('"api_key";r=179;t=60');
    expect(response.headers.get("ratelimit-policy")).toBe('"api_key";q=180;w=60');
  });
});
