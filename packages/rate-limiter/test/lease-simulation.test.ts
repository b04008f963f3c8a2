import { describe, expect, it } from "vitest";
import { seededRandom } from "../../../test/seeded-random";
import type { RateWindow } from "../src/window-types";
import {
  admittedBetween,
  busiestWindow,
  MINUTE,
  platform,
  recordsStandForAdmissions,
  routeWindow,
  settleEverything,
} from "./simulated-platform";

/**
 * Property tests of the leases: several simulated gateway isolates in front of one ledger per
 * counter key (`simulated-platform.ts`), with random network delays, arrival times and lease expiry.
 */

describe("leases across simulated isolates", () => {
  it.each(Array.from({ length: 12 }, (_, seed) => seed + 1))(
    "never admits more than a window's limit in any 60 s, and records exactly what was admitted (seed %i)",
    async (seed) => {
      const draw = seededRandom(seed * 7919);
      const isolateCount = 1 + Math.floor(draw() * 6);
      const world = platform(seed, isolateCount, 1, 1 + draw() * 300);
      const windows = [routeWindow("org", 20 + Math.floor(draw() * 200)), routeWindow("route-a", 5 + Math.floor(draw() * 80))];
      const other = [windows[0] as RateWindow, routeWindow("route-b", 5 + Math.floor(draw() * 80))];
      // Bursts and lulls: arrivals at random times, several times the budgets, over four minutes.
      const end = 4 * MINUTE;
      const requests = 600 + Math.floor(draw() * 1_500);
      for (let i = 0; i < requests; i++) {
        const at = draw() < 0.5 ? draw() * end : Math.floor(draw() * 8) * 30_000 + draw() * 3_000;
        world.request(at, Math.floor(draw() * isolateCount), draw() < 0.6 ? windows : other);
      }
      await settleEverything(world, end);

      for (const counted of [...windows, other[1] as RateWindow]) {
        const admitted = world.admitted.get(counted.key) ?? [];
        expect(busiestWindow(admitted)).toBeLessThanOrEqual(counted.limit);
        // Refunds are exact: the ledger recorded no admission for a refusal or an unused slot, each
        // at or shortly after (one wire delay) the time it was made.
        expect(recordsStandForAdmissions(world.recorded.get(counted.key) ?? [], admitted, 301)).toBe(true);
      }
      expect(world.refused).toBeGreaterThan(0);
    },
  );

  it("gives a steady single client at least 95% of every budget that binds it", async () => {
    for (const [routes, binding] of [
      [["route"], { key: "route", limit: 120 }],
      [["route-a", "route-b"], { key: "key", limit: 180 }],
    ] as const) {
      const world = platform(5, 1);
      const keyWindow = routeWindow("key", 180);
      // 300 requests a minute, above every budget, for six minutes.
      for (let i = 0; i < 6 * 300; i++) {
        const route = routes[i % routes.length] as string;
        world.request(i * 200, 0, [keyWindow, routeWindow(route, 120)]);
      }
      await settleEverything(world, 6 * MINUTE);
      const admitted = world.admitted.get(binding.key) ?? [];
      for (let minute = 1; minute < 6; minute++) {
        expect(admittedBetween(admitted, minute * MINUTE, (minute + 1) * MINUTE)).toBeGreaterThanOrEqual(0.95 * binding.limit);
      }
      expect(busiestWindow(admitted)).toBeLessThanOrEqual(binding.limit);
    }
  });

  it("refuses nothing while steady demand across isolates stays below the budget", async () => {
    const world = platform(11, 4);
    const draw = seededRandom(42);
    const windows = [routeWindow("org", 600), routeWindow("route", 120)];
    // 108 requests a minute (90% of the route's budget), evenly spaced with jitter, each to any isolate.
    const interval = MINUTE / 108;
    for (let i = 0; i < 10 * 108; i++) {
      world.request(i * interval + draw() * interval * 0.2, Math.floor(draw() * 4), windows);
    }
    await settleEverything(world, 10 * MINUTE);
    expect(world.refused).toBe(0);
    expect(world.admitted.get("route")).toHaveLength(10 * 108);
  });

  it("asks the objects rarely while there is headroom", async () => {
    const world = platform(3, 2);
    const windows = ["org", "identity", "key", "route", "platform"].map((key) => routeWindow(key, 120_000));
    // 50 requests a second for a minute, to two isolates.
    for (let i = 0; i < 3_000; i++) world.request(i * 20, i % 2, windows);
    await settleEverything(world, MINUTE);
    const calls = world.isolates.reduce((sum, isolate) => sum + isolate.calls, 0);
    expect(calls / 3_000).toBeLessThan(0.2);
    expect(world.refused).toBe(0);
  });

  // Seeds 4, 9 and 12 went over budget while a call that only returned settlements closed the
  // isolate's live lease at the object (`LeaseHolder.#call`, want 0): 54 of 300 seeds did.
  it.each([1, 2, 4, 9, 12])(
    "with slow calls (past the abandoned-call time) and failing ones, never admits more than a budget, and puts back every settlement a failed call carried (seed %i)",
    async (seed) => {
      const draw = seededRandom(seed * 104_729);
      const isolateCount = 2 + Math.floor(draw() * 4);
      // Faults for the first three minutes, then two calm minutes in which the traffic goes on.
      const faults = { slow: 0.15, slowMs: 2_500 + draw() * 2_000, failing: 0.2, untilMs: 3 * MINUTE };
      const world = platform(seed, isolateCount, 1, 1 + draw() * 100, faults);
      const windows = [routeWindow("org", 40 + Math.floor(draw() * 150)), routeWindow("route", 10 + Math.floor(draw() * 60))];
      const end = 5 * MINUTE;
      for (let i = 0; i < 1_000; i++) world.request(draw() * end, Math.floor(draw() * isolateCount), windows);
      await world.simulation.runUntil(end + 5 * MINUTE);

      for (const counted of windows) {
        const admitted = world.admitted.get(counted.key) ?? [];
        expect(busiestWindow(admitted)).toBeLessThanOrEqual(counted.limit);
        // A settlement sent twice (its answer lost) is recorded once: never more admissions than uses.
        expect((world.recorded.get(counted.key) ?? []).length).toBeLessThanOrEqual(admitted.length);
      }
      expect(world.failed).toBeGreaterThan(0);
      expect(world.lostSettlements.size).toBeGreaterThan(0);
      for (const leaseId of world.lostSettlements) expect(world.settled.has(leaseId), leaseId).toBe(true);
    },
  );
});
