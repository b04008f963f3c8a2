import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { LeaseHolder } from "../src/lease-holder";
import type { RateLimiter } from "../src/limiter-object";
import { LEASE_MS } from "../src/window-ledger";
import type { RateWindow } from "../src/window-types";
import {
  admit,
  callerWindows,
  connectionWindow,
  failedAuthenticationWindow,
  inboundWindow,
  ipWindow,
  leaseCounters,
  mcpDiscoveryWindows,
  publicReadWindows,
  RATE_LIMITS,
  recipientWindow,
  windowsFor,
} from "../src/windows";

const START = Date.UTC(2026, 10, 23, 12, 0, 0);

function stubFor(window: RateWindow) {
  return env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(window.key));
}

/** Points the clock of every window's object at `time.now`, which the test then moves. */
async function freezeClocks(windows: readonly RateWindow[], time: { now: number }) {
  await Promise.all(
    windows.map((window) =>
      runInDurableObject(stubFor(window), (limiter: RateLimiter) => {
        limiter.clock = () => time.now;
      }),
    ),
  );
}

/** Slots a window's object counts now: admissions and leased slots. */
async function counted(window: RateWindow): Promise<number> {
  return window.limit - (await stubFor(window).peek(window.limit, window.windowMs)).remaining;
}

/** An isolate's leases on the test's clock, and how to run it past the end of every lease it holds. */
function isolate(time: { now: number }) {
  const holder = new LeaseHolder(() => time.now);
  const admitThrough = (windows: readonly RateWindow[]) => admit(env.RATE_LIMITER, windows, undefined, holder);
  const endLeases = async () => {
    time.now += LEASE_MS;
    await holder.returnEnded(leaseCounters(env.RATE_LIMITER));
  };
  return { admitThrough, endLeases };
}

async function fill(window: RateWindow, count: number) {
  for (let i = 0; i < count; i++) await stubFor(window).take(window.limit, window.windowMs);
}

function byScope(windows: readonly RateWindow[], scope: RateWindow["scope"]): RateWindow {
  const window = windows.find((candidate) => candidate.scope === scope);
  if (!window) throw new Error(`no ${scope} window`);
  return window;
}

/** Distinct ids per test so the shared `platform` window is the only counter tests have in common. */
function request(tag: string) {
  return {
    organizationId: `org-${tag}`,
    workspaceId: `ws-${tag}`,
    actorId: `actor-${tag}`,
    apiKeyId: `key-${tag}`,
    routeKey: "GET /records/{recordId}",
  };
}

describe("windowsFor", () => {
  it("names one counter per scope with the per-minute budgets", () => {
    expect(windowsFor(request("a"))).toEqual([
      { scope: "organization", key: "org:org-a", limit: 600, windowMs: 60_000 },
      { scope: "workspace", key: "ws:org-a:ws-a", limit: 300, windowMs: 60_000 },
      { scope: "identity", key: "actor:org-a:actor-a", limit: 180, windowMs: 60_000 },
      { scope: "route", key: "route:org-a:GET /records/{recordId}", limit: 120, windowMs: 60_000 },
      { scope: "platform", key: "platform", limit: 2000, windowMs: 60_000 },
    ]);
  });

  it("counts the API key apart only when its budget is smaller than its owner's identity's", () => {
    // The key's requests are all its owner's: with the real budgets (180 each) its window cannot fill first.
    expect(windowsFor(request("a")).map((window) => window.scope)).not.toContain("api_key");
    const budgets = { ...RATE_LIMITS, api_key: 100 };
    expect(windowsFor(request("a"), budgets).map((window) => window.key)).toEqual([
      "org:org-a",
      "ws:org-a:ws-a",
      "actor:org-a:actor-a",
      "key:key-a",
      "route:org-a:GET /records/{recordId}",
      "platform",
    ]);
  });

  it("leaves out the workspace and API key windows when the request has none", () => {
    const scopes = windowsFor({ ...request("b"), workspaceId: null, apiKeyId: undefined }).map((window) => window.scope);
    expect(scopes).toEqual(["organization", "identity", "route", "platform"]);
  });

  it("gives an MCP request that runs no route the caller's identity and key windows only", () => {
    expect(callerWindows(request("c")).map((window) => window.key)).toEqual(["actor:org-c:actor-c"]);
    expect(callerWindows(request("c"), { ...RATE_LIMITS, api_key: 100 }).map((window) => window.key)).toEqual([
      "actor:org-c:actor-c",
      "key:key-c",
    ]);
    expect(callerWindows({ ...request("d"), apiKeyId: null }).map((window) => window.scope)).toEqual(["identity"]);
  });

  it("limits unauthenticated clients per IP", () => {
    expect(ipWindow("203.0.113.7")).toEqual({ scope: "ip", key: "ip:203.0.113.7", limit: 60, windowMs: 60_000 });
  });

  it("counts a client's calls of public operations apart from its failed authentications, and never in the platform window", () => {
    expect(publicReadWindows("203.0.113.7")).toEqual([
      { scope: "ip", key: "anon:203.0.113.7", limit: 60, windowMs: 60_000 },
      { scope: "public", key: "public", limit: 2000, windowMs: 60_000 },
    ]);
    expect(publicReadWindows("2001:db8:1:2::5")[0]?.key).toBe("anon:2001:db8:1:2::/64");
  });

  it("gives each class of anonymous traffic a global window of its own, none of them the platform's", () => {
    expect(mcpDiscoveryWindows("203.0.113.7")).toEqual([
      { scope: "ip", key: "mcp-discovery:203.0.113.7", limit: 60, windowMs: 60_000 },
      { scope: "mcp_discovery", key: "mcp-discovery", limit: 2000, windowMs: 60_000 },
    ]);
    expect(failedAuthenticationWindow()).toEqual({
      scope: "failed_authentication",
      key: "failed-authentications",
      limit: 2000,
      windowMs: 60_000,
    });
    const globalKeys = [publicReadWindows("203.0.113.7")[1], mcpDiscoveryWindows("203.0.113.7")[1], failedAuthenticationWindow()];
    expect(new Set(globalKeys.map((window) => window?.key)).size).toBe(3);
    expect(globalKeys.map((window) => window?.key)).not.toContain("platform");
  });

  it("counts a valid unsubscribe token in its recipient's window alone", () => {
    expect(recipientWindow("org_1", "5f1c0b")).toEqual({
      scope: "recipient",
      key: "recipient:org_1:5f1c0b",
      limit: 60,
      windowMs: 60_000,
    });
  });

  it("counts an inbound webhook per sending address only, before any shared window; its connection only once verified", () => {
    expect(inboundWindow("203.0.113.7")).toEqual({ scope: "ip", key: "inbound:203.0.113.7", limit: 600, windowMs: 60_000 });
    expect(connectionWindow("conn_1")).toEqual({ scope: "connection", key: "conn:conn_1", limit: 600, windowMs: 60_000 });
  });
});

describe("admit", () => {
  it("admits through every window and reports the one with least remaining", async () => {
    const time = { now: START };
    const windows = windowsFor(request("tightest"));
    await freezeClocks(windows, time);
    const identity = byScope(windows, "identity");
    await fill(identity, 100);

    time.now = START + 15_500;
    const { admitThrough, endLeases } = isolate(time);
    const result = await admitThrough(windows);
    expect(result).toEqual({
      allowed: true,
      tightest: { scope: "identity", limit: 180, remaining: 79, resetSeconds: 45, windowMs: 60_000 },
    });
    await endLeases();
    for (const window of windows.filter((candidate) => candidate.scope !== "platform")) {
      expect(await counted(window)).toBe(window === identity ? 101 : 1);
    }
  });

  it("gives back what the other windows granted when one is full", async () => {
    const time = { now: START };
    const windows = windowsFor(request("all-or-nothing"));
    await freezeClocks(windows, time);
    const route = byScope(windows, "route");
    await fill(route, route.limit);
    const others = windows.filter((window) => window.scope !== "platform");
    // Nearly full, so that their leases are short and go back when they end: a roomy window's long
    // lease keeps an unused slot for the isolate's next requests until it lapses.
    for (const window of others) if (window !== route) await fill(window, window.limit - 6);
    const { admitThrough, endLeases } = isolate(time);
    await admitThrough(windows.filter((window) => window !== route));
    await endLeases();
    const before = await Promise.all(others.map(counted));

    time.now = START + 12_000;
    const result = await admitThrough(windows);
    expect(result).toEqual({ allowed: false, refusing: { scope: "route", limit: 120, windowMs: 60_000, retryAfterMs: 48_000 } });
    // The slots the other windows leased for it go back unused when the leases end.
    await endLeases();
    expect(await Promise.all(others.map(counted))).toEqual(before);
  });

  it("names the refusing window that frees last when several refuse", async () => {
    const time = { now: START };
    const windows = windowsFor(request("several"));
    await freezeClocks(windows, time);
    await fill(byScope(windows, "identity"), 180);
    time.now = START + 10_000;
    await fill(byScope(windows, "route"), 120);

    time.now = START + 20_000;
    const result = await isolate(time).admitThrough(windows);
    expect(result).toEqual({ allowed: false, refusing: { scope: "route", limit: 120, windowMs: 60_000, retryAfterMs: 50_000 } });
  });

  it("admits exactly the limit of parallel requests from one client IP", async () => {
    const time = { now: START };
    const window = ipWindow("198.51.100.20");
    await freezeClocks([window], time);
    const { admitThrough } = isolate(time);
    const results = await Promise.all(Array.from({ length: 75 }, () => admitThrough([window])));
    expect(results.filter((result) => result.allowed)).toHaveLength(60);
    expect(results.find((result) => !result.allowed)).toEqual({
      allowed: false,
      refusing: { scope: "ip", limit: 60, windowMs: 60_000, retryAfterMs: 60_000 },
    });
  });

  it("takes nothing and rethrows when a window cannot be asked", async () => {
    const time = { now: START };
    const healthy = ipWindow("192.0.2.1");
    const broken: RateWindow = { scope: "ip", key: "ip:192.0.2.2", limit: 0, windowMs: 60_000 };
    await freezeClocks([healthy, broken], time);
    // Nearly full, so that the healthy window's lease is short and goes back when it ends.
    await fill(healthy, healthy.limit - 3);
    const { admitThrough, endLeases } = isolate(time);
    await expect(admitThrough([healthy, broken])).rejects.toThrow(RangeError);
    await endLeases();
    expect(await counted(healthy)).toBe(healthy.limit - 3);
  });
});
