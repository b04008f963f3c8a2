import { evictDurableObject, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { RateLimiter } from "../src/limiter-object";

const WINDOW_MS = 60_000;
const START = Date.UTC(2026, 10, 23, 12, 0, 0);

/** A fresh counter whose clock reads `time.now`, moved by the test instead of sleeping. */
async function counter(name: string, time: { now: number }) {
  const stub = env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(name));
  await setClock(stub, time);
  return stub;
}

function setClock(stub: DurableObjectStub<RateLimiter>, time: { now: number }) {
  return runInDurableObject(stub, (limiter: RateLimiter) => {
    limiter.clock = () => time.now;
  });
}

describe("RateLimiter Durable Object", () => {
  it("admits up to the limit, refuses the next, and frees the slot exactly windowMs later", async () => {
    const time = { now: START };
    const stub = await counter("boundary", time);
    for (let i = 0; i < 3; i++) expect((await stub.take(3, WINDOW_MS)).allowed).toBe(true);

    time.now = START + 20_000;
    expect(await stub.take(3, WINDOW_MS)).toMatchObject({ allowed: false, remaining: 0, retryAfterMs: 40_000 });
    time.now = START + WINDOW_MS - 1;
    expect(await stub.take(3, WINDOW_MS)).toMatchObject({ allowed: false, retryAfterMs: 1 });
    time.now = START + WINDOW_MS;
    expect(await stub.take(3, WINDOW_MS)).toMatchObject({ allowed: true, remaining: 2 });
  });

  it("slides: admissions spread over time free slots one at a time", async () => {
    const time = { now: START };
    const stub = await counter("sliding", time);
    for (const offset of [0, 15_000, 30_000]) {
      time.now = START + offset;
      expect((await stub.take(3, WINDOW_MS)).allowed).toBe(true);
    }
    time.now = START + 45_000;
    expect(await stub.take(3, WINDOW_MS)).toMatchObject({ allowed: false, retryAfterMs: 15_000 });
    time.now = START + 60_000;
    expect(await stub.take(3, WINDOW_MS)).toMatchObject({ allowed: true, remaining: 0, resetMs: 15_000 });
    expect(await stub.take(3, WINDOW_MS)).toMatchObject({ allowed: false, retryAfterMs: 15_000 });
    time.now = START + 75_000;
    expect(await stub.take(3, WINDOW_MS)).toMatchObject({ allowed: true, remaining: 0 });
  });

  it("refund frees exactly one slot; refunding twice or an unknown token does nothing", async () => {
    const time = { now: START };
    const stub = await counter("refund", time);
    const first = await stub.take(2, WINDOW_MS);
    await stub.take(2, WINDOW_MS);
    expect((await stub.take(2, WINDOW_MS)).allowed).toBe(false);

    expect(await stub.refund(first.token as string)).toBe(true);
    expect(await stub.refund(first.token as string)).toBe(false);
    expect(await stub.refund(crypto.randomUUID())).toBe(false);

    expect(await stub.take(2, WINDOW_MS)).toMatchObject({ allowed: true, remaining: 0 });
    expect((await stub.take(2, WINDOW_MS)).allowed).toBe(false);
  });

  it.each([
    { parallel: 25, limit: 10 },
    { parallel: 6, limit: 10 },
  ])("admits exactly min(N, L) of $parallel parallel takes against a limit of $limit", async ({ parallel, limit }) => {
    const time = { now: START };
    const stub = await counter(`concurrency-${parallel}-${limit}`, time);
    const decisions = await Promise.all(Array.from({ length: parallel }, () => stub.take(limit, WINDOW_MS)));
    const admitted = decisions.filter((decision) => decision.allowed);
    expect(admitted).toHaveLength(Math.min(parallel, limit));
    expect(new Set(admitted.map((decision) => decision.token)).size).toBe(admitted.length);
    expect(decisions.map((decision) => decision.remaining).sort((a, b) => a - b)[0]).toBe(Math.max(0, limit - parallel));
  });

  it("keeps its admissions when the object is evicted and a fresh stub is used", async () => {
    const time = { now: START };
    const name = "persistence";
    const stub = await counter(name, time);
    const kept = await stub.take(3, WINDOW_MS);
    const refunded = await stub.take(3, WINDOW_MS);
    await stub.refund(refunded.token as string);
    time.now = START + 10_000;
    await stub.take(3, WINDOW_MS);

    // The runtime evicts only idle objects, long after their pending write (1 s) has run.
    await runInDurableObject(stub, (limiter: RateLimiter) => limiter.save());
    await evictDurableObject(stub);
    const fresh = await counter(name, time);
    expect(await fresh.take(3, WINDOW_MS)).toMatchObject({ allowed: true, remaining: 0, resetMs: 50_000 });
    expect(await fresh.take(3, WINDOW_MS)).toMatchObject({ allowed: false, retryAfterMs: 50_000 });
    expect(await fresh.refund(kept.token as string)).toBe(true);

    time.now = START + 70_000;
    await runInDurableObject(fresh, (limiter: RateLimiter) => limiter.save());
    await evictDurableObject(fresh);
    const afterExpiry = await counter(name, time);
    expect(await afterExpiry.take(3, WINDOW_MS)).toMatchObject({ allowed: true, remaining: 2 });
    const rows = await runInDurableObject(afterExpiry, (limiter: RateLimiter, state) => {
      limiter.save();
      return state.storage.sql.exec<{ at: number }>("SELECT at FROM admission ORDER BY at").toArray();
    });
    expect(rows).toEqual([{ at: START + 70_000 }]);
  });

  it("writes its changes to storage by itself after the delay, in one transaction", async () => {
    const stub = await counter("delayed-write", { now: START });
    const storedRows = () =>
      runInDurableObject(
        stub,
        (_limiter: RateLimiter, state) => state.storage.sql.exec<{ n: number }>("SELECT count(*) AS n FROM admission").one().n,
      );
    await runInDurableObject(stub, (limiter: RateLimiter) => {
      limiter.persistDelayMs = 0;
    });
    await stub.take(3, WINDOW_MS);
    await stub.take(3, WINDOW_MS);
    await scheduler.wait(10);
    expect(await storedRows()).toBe(2);
  });
});
