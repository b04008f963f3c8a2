import { evictDurableObject, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { RateLimiter } from "../src/limiter-object";
import { LONGEST_LEASE_MS } from "../src/window-ledger";

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

async function fill(stub: DurableObjectStub<RateLimiter>, limit: number, count: number) {
  for (let i = 0; i < count; i++) await stub.take(limit, WINDOW_MS);
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

  it("leases slots that count until settled, then keeps only the used ones at their times", async () => {
    const time = { now: START };
    const stub = await counter("lease", time);
    const grant = await stub.lease(10, WINDOW_MS, 2, []);
    expect(grant).toMatchObject({ slots: 2, remaining: 8, resetMs: null, retryAfterMs: 0 });
    expect(await stub.take(10, WINDOW_MS)).toMatchObject({ allowed: true, remaining: 7 });

    time.now = START + 5_000;
    const settled = await stub.lease(10, WINDOW_MS, 0, [{ leaseId: grant.leaseId as string, usedAfterMs: [1_000] }]);
    expect(settled).toMatchObject({ leaseId: null, slots: 0, remaining: 8, retryAfterMs: 0 });
    // A second settlement of the same lease changes nothing.
    expect(await stub.lease(10, WINDOW_MS, 0, [{ leaseId: grant.leaseId as string, usedAfterMs: [1_000, 1_500] }])).toMatchObject(
      {
        remaining: 8,
      },
    );
    // The used slot counts from the grant plus its offset: it frees at START + 61 s.
    time.now = START + 60_500;
    expect(await stub.peek(10, WINDOW_MS)).toMatchObject({ remaining: 9, resetMs: 500 });
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
    await stub.take(3, WINDOW_MS);
    const leased = await stub.lease(3, WINDOW_MS, 1, []);
    time.now = START + 10_000;
    await stub.take(3, WINDOW_MS);

    // The runtime evicts only idle objects, long after their pending write (1 s) has run.
    await runInDurableObject(stub, (limiter: RateLimiter) => limiter.save());
    await evictDurableObject(stub);
    const fresh = await counter(name, time);
    // The lease came back with the object: the window is full until the first admission leaves.
    expect(await fresh.take(3, WINDOW_MS)).toMatchObject({ allowed: false, retryAfterMs: 50_000 });
    expect(await fresh.lease(3, WINDOW_MS, 1, [{ leaseId: leased.leaseId as string, usedAfterMs: [] }])).toMatchObject({
      slots: 1,
      remaining: 0,
    });

    time.now = START + 70_000;
    await runInDurableObject(fresh, (limiter: RateLimiter) => limiter.save());
    await evictDurableObject(fresh);
    const afterExpiry = await counter(name, time);
    // The admissions have left; the unsettled second lease counts until its end plus the window.
    expect(await afterExpiry.take(3, WINDOW_MS)).toMatchObject({ allowed: true, remaining: 1 });
    const rows = await runInDurableObject(afterExpiry, (limiter: RateLimiter, state) => {
      limiter.save();
      return state.storage.sql.exec<{ at: number }>("SELECT at FROM admission ORDER BY at").toArray();
    });
    expect(rows).toEqual([{ at: START + 70_000 }]);
  });

  it("continues a lease in place: grows it, shrinks it, re-times it by the headroom, and keeps it through eviction", async () => {
    const time = { now: START };
    const name = "continued";
    const stub = await counter(name, time);
    const first = await stub.lease(100, WINDOW_MS, 2, []);
    // A mostly free window: the longest lease.
    expect(first).toMatchObject({ slots: 2, remaining: 98, durationMs: LONGEST_LEASE_MS, retryAfterMs: 0 });
    const leaseId = first.leaseId as string;

    time.now = START + 1_000;
    const grown = await stub.lease(100, WINDOW_MS, 6, [], leaseId);
    expect(grown).toMatchObject({ leaseId, slots: 6, remaining: 94, retryAfterMs: 0 });
    await runInDurableObject(stub, (limiter: RateLimiter) => limiter.save());
    await evictDurableObject(stub);
    const fresh = await counter(name, time);
    expect(await fresh.peek(100, WINDOW_MS)).toMatchObject({ remaining: 94 });

    // Others fill the window to 5 free: shrinking to one slot frees five, and the lease now ends soon.
    await fill(fresh, 100, 89);
    const shrunk = await fresh.lease(100, WINDOW_MS, 1, [], leaseId);
    expect(shrunk).toMatchObject({ leaseId, slots: 1, remaining: 10 });
    expect(shrunk.durationMs).toBeLessThan(LONGEST_LEASE_MS);
    expect(await fresh.peek(100, WINDOW_MS)).toMatchObject({ remaining: 10 });

    // A lease the object no longer counts is not continued: a new one is granted.
    time.now = START + 1_000 + shrunk.durationMs + WINDOW_MS;
    const renewed = await fresh.lease(100, WINDOW_MS, 1, [], leaseId);
    expect(renewed.leaseId).not.toBe(leaseId);
    expect(renewed.slots).toBe(1);
  });

  it("refuses to grow a lease that holds the rest of a full window until its own admissions can leave", async () => {
    const time = { now: START };
    const stub = await counter("grown-full", time);
    const grant = await stub.lease(4, WINDOW_MS, 4, []);
    expect(grant.slots).toBe(1);
    let slots = grant.slots;
    while (slots < 4) slots = (await stub.lease(4, WINDOW_MS, slots + 1, [], grant.leaseId)).slots;
    expect(await stub.lease(4, WINDOW_MS, 5, [], grant.leaseId)).toMatchObject({
      leaseId: grant.leaseId,
      slots: 4,
      remaining: 0,
      retryAfterMs: WINDOW_MS,
    });
  });

  it("gives back a taken slot in memory and in storage, so an evicted object does not count it again", async () => {
    const time = { now: START };
    const stub = await counter("given-back", time);
    const kept = await stub.take(2, WINDOW_MS);
    const returned = await stub.take(2, WINDOW_MS);
    expect(kept.allowed && returned.allowed).toBe(true);
    expect(await stub.giveBack(returned.token as string)).toBe(true);
    await runInDurableObject(stub, (limiter: RateLimiter) => limiter.save());
    await evictDurableObject(stub);
    const fresh = await counter("given-back", time);
    expect(await fresh.peek(2, WINDOW_MS)).toMatchObject({ allowed: true, remaining: 1 });
    expect(await fresh.giveBack(returned.token as string)).toBe(false);
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
