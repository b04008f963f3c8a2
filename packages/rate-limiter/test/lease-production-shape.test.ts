import { describe, expect, it } from "vitest";
import { seededRandom } from "../../../test/seeded-random";
import type { RateWindow } from "../src/window-types";
import { windowsFor } from "../src/windows";
import { busiestWindow, MINUTE, platform, settleEverything } from "./simulated-platform";

/**
 * The leases in production's shape (issue 30): one key's requests spread over 50 gateway isolates,
 * each of which sees it rarely, 20 ms from the objects. 48 organizations with Zipf-distributed
 * rates (the largest 3 requests a second, the smallest 0.1), each with API keys, workspaces and
 * the scale simulation's route mix, so every request meets the windows of DESIGN.md section 4 as
 * the gateway counts them (`windowsFor`), with their real budgets: five (four for `GET /workspaces`,
 * which names no workspace), the API key's window being its owner's identity's at these budgets.
 *
 * Calls per request count every call an isolate makes to an object: grants, growth, renewals
 * ahead of a lease's end and returns of unused slots, each one call to one object; they are
 * printed by window and by kind.
 */

const ISOLATES = 50;
const ORGANIZATIONS = 48;
const ONE_WAY_MS = 10;
const LARGEST_RPS = 3;
const SMALLEST_RPS = 0.1;
/** The isolates' first half hour, in which they meet every key for the first time, is reported apart. */
const WARM_UP_MS = 30 * MINUTE;
const DURATION_MS = 60 * MINUTE;

/** Route templates by their share of an organization's requests (`bench/scale.mjs`), and whether they name a workspace. */
const ROUTE_MIX = [
  ["GET /records/{recordId}", 0.35, true],
  ["POST /records", 0.2, true],
  ["GET /records", 0.15, true],
  ["PATCH /records/{recordId}", 0.12, true],
  ["POST /records/query", 0.1, true],
  ["GET /workspaces", 0.08, false],
] as const;

/** Picks an index by weights (summing to 1). */
function pick(draw: () => number, weights: readonly number[]): number {
  let left = draw();
  for (const [index, weight] of weights.entries()) {
    left -= weight;
    if (left < 0) return index;
  }
  return weights.length - 1;
}

const normalized = (weights: readonly number[]) => {
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  return weights.map((weight) => weight / total);
};

/**
 * The first of `weights` (at most `most`, at least one), renormalized: as many as keep each one's
 * share of `rps` at `SMALLEST_RPS` or more, so that every counter key sees 0.1-3 requests a second.
 */
function sharesAbove(weights: readonly number[], rps: number, most = weights.length): number[] {
  for (let count = Math.min(most, weights.length); count > 1; count--) {
    const shares = normalized(weights.slice(0, count));
    if ((shares[count - 1] as number) * rps >= SMALLEST_RPS) return shares;
  }
  return [1];
}

interface Organization {
  readonly id: string;
  readonly rps: number;
  readonly keyShares: number[];
  readonly workspaceShares: number[];
  readonly routeShares: number[];
}

/** Zipf weights 1, 1/2, 1/3, ... */
const ZIPF = [1, 1 / 2, 1 / 3];

function organizations(): Organization[] {
  // Rates by rank as Zipf's law, with the exponent that takes rank 1 to 3 rps and the last rank to 0.1.
  const exponent = Math.log(LARGEST_RPS / SMALLEST_RPS) / Math.log(ORGANIZATIONS);
  return Array.from({ length: ORGANIZATIONS }, (_, index) => {
    const rank = index + 1;
    const rps = LARGEST_RPS / rank ** exponent;
    return {
      id: `org-${rank}`,
      rps,
      keyShares: sharesAbove(ZIPF, rps),
      workspaceShares: sharesAbove(ZIPF, rps),
      routeShares: sharesAbove(
        ROUTE_MIX.map(([, share]) => share),
        rps,
      ),
    };
  });
}

/** The value at `share` (0..1) of the sorted list. */
const percentile = (sorted: readonly number[], share: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))] ?? 0;

describe("leases in production's shape", () => {
  // A simulated hour of 50 isolates takes a while on a busy machine: a longer hang guard.
  it("admits every request under budget from 50 isolates and never over any window", { timeout: 180_000 }, async () => {
    const draw = seededRandom(30);
    const world = platform(30, ISOLATES, ONE_WAY_MS, ONE_WAY_MS);
    const windowsByKey = new Map<string, RateWindow>();
    let requests = 0;
    for (const organization of organizations()) {
      // Poisson arrivals at the organization's rate, each to any isolate.
      for (
        let at = -Math.log(1 - draw()) * (1000 / organization.rps);
        at < DURATION_MS;
        at += -Math.log(1 - draw()) * (1000 / organization.rps)
      ) {
        const [routeKey, , namesWorkspace] = ROUTE_MIX[pick(draw, organization.routeShares)] as (typeof ROUTE_MIX)[number];
        const key = pick(draw, organization.keyShares);
        const windows = windowsFor({
          organizationId: organization.id,
          workspaceId: namesWorkspace ? `ws-${pick(draw, organization.workspaceShares)}` : null,
          actorId: `actor-${key}`,
          apiKeyId: `${organization.id}-key-${key}`,
          routeKey,
        });
        for (const window of windows) windowsByKey.set(window.key, window);
        world.request(at, Math.floor(draw() * ISOLATES), windows);
        requests += 1;
      }
    }
    const totalCalls = () => world.isolates.reduce((sum, isolate) => sum + isolate.calls, 0);
    const warm = { calls: 0, requests: 0, waits: 0 };
    world.simulation.at(WARM_UP_MS, () => {
      warm.calls = totalCalls();
      warm.requests = world.waits.length;
      warm.waits = world.waits.length;
    });
    await settleEverything(world, DURATION_MS);

    const calls = totalCalls();
    const waits = world.waits.slice(warm.waits).sort((a, b) => a - b);
    const warmRequests = requests - warm.requests;
    const busiest = Math.max(
      ...[...windowsByKey.values()].map((window) => busiestWindow(world.admitted.get(window.key) ?? []) / window.limit),
    );
    console.log(
      [
        `lease simulation, production shape: ${requests} requests in ${DURATION_MS / MINUTE} min from ${ORGANIZATIONS} organizations (Zipf, ${SMALLEST_RPS}-${LARGEST_RPS} rps) over ${ISOLATES} isolates, ${2 * ONE_WAY_MS} ms round trip, ${windowsByKey.size} counter keys`,
        `Durable Object calls per request, after the first ${WARM_UP_MS / MINUTE} min: ${((calls - warm.calls) / warmRequests).toFixed(3)}; in the first ${WARM_UP_MS / MINUTE} min: ${(warm.calls / warm.requests).toFixed(3)}; over the run by window: ${[...world.callsByScope].map(([scope, count]) => `${scope} ${(count / requests).toFixed(3)}`).join(", ")}`,
        `by window and kind: ${[...world.callsByKind]
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([kind, count]) => `${kind} ${(count / requests).toFixed(3)}`)
          .join(", ")}`,
        `admission wait after the first ${WARM_UP_MS / MINUTE} min: p50 ${percentile(waits, 0.5)} ms, p90 ${percentile(waits, 0.9)} ms, p99 ${percentile(waits, 0.99)} ms; admitted locally: ${((100 * waits.filter((wait) => wait === 0).length) / waits.length).toFixed(1)}%`,
        `refused: ${world.refused}; fullest window: ${(100 * busiest).toFixed(0)}% of its budget`,
      ].join("\n"),
    );
    for (const window of windowsByKey.values()) {
      expect(busiestWindow(world.admitted.get(window.key) ?? []), window.key).toBeLessThanOrEqual(window.limit);
    }
    // Every window is under its budget: a refusal would be slots locked in other isolates' leases.
    expect(world.refused).toBe(0);
    expect(world.waits).toHaveLength(requests);
  });
});
