import { expect } from "vitest";
import { seededRandom } from "../../../test/seeded-random";
import { type LeaseCounters, LeaseHolder } from "../src/lease-holder";
import { LONGEST_LEASE_MS, WindowLedger } from "../src/window-ledger";
import type { RateWindow } from "../src/window-types";

/**
 * A simulated platform for the leases' property tests: gateway isolates (each a `LeaseHolder` with
 * a clock of its own) in front of one `WindowLedger` per counter key, on a simulated clock, with
 * random network delays, arrival times and faults. Nothing is mocked but time and the wire:
 * holders and ledgers are the production code.
 */

export const WINDOW_MS = 60_000;
export const MINUTE = 60_000;

interface Event {
  readonly at: number;
  readonly order: number;
  readonly run: () => void;
}

/** Events in time order (a binary heap); promises settle between events, at the event's time. */
class Simulation {
  now = 0;
  #events: Event[] = [];
  #order = 0;

  at(at: number, run: () => void): void {
    const heap = this.#events;
    heap.push({ at: Math.max(at, this.now), order: this.#order++, run });
    let index = heap.length - 1;
    while (index > 0) {
      const parent = (index - 1) >> 1;
      if (!this.#before(heap[index] as Event, heap[parent] as Event)) break;
      [heap[index], heap[parent]] = [heap[parent] as Event, heap[index] as Event];
      index = parent;
    }
  }

  async runUntil(end: number): Promise<void> {
    for (;;) {
      const next = this.#events[0];
      if (!next || next.at > end) break;
      this.#pop();
      this.now = next.at;
      next.run();
      // Let every promise the event settled run its continuations before time moves on.
      for (let tick = 0; tick < 100; tick++) await null;
    }
    this.now = end;
  }

  #before(a: Event, b: Event): boolean {
    return a.at < b.at || (a.at === b.at && a.order < b.order);
  }

  #pop(): void {
    const heap = this.#events;
    const last = heap.pop() as Event;
    if (heap.length === 0) return;
    heap[0] = last;
    let index = 0;
    for (;;) {
      const left = index * 2 + 1;
      const right = left + 1;
      let smallest = index;
      if (left < heap.length && this.#before(heap[left] as Event, heap[smallest] as Event)) smallest = left;
      if (right < heap.length && this.#before(heap[right] as Event, heap[smallest] as Event)) smallest = right;
      if (smallest === index) return;
      [heap[index], heap[smallest]] = [heap[smallest] as Event, heap[index] as Event];
      index = smallest;
    }
  }
}

export interface Platform {
  readonly simulation: Simulation;
  /** Real (simulated) times of the admissions each key granted, as the isolates took the slots. */
  readonly admitted: Map<string, number[]>;
  /** Times each key's ledger recorded when leases were settled. */
  readonly recorded: Map<string, number[]>;
  readonly ledgers: Map<string, WindowLedger>;
  readonly isolates: LeaseHolder[];
  refused: number;
  /** Calls to the objects, by the scope of the window called. */
  readonly callsByScope: Map<string, number>;
  /** Calls to the objects, by scope and kind: `grant` (no lease continued), `growth`, `renewal` (continued, no more slots asked), `return` (settling only). */
  readonly callsByKind: Map<string, number>;
  /** Ms each answered request waited for its admission or refusal. */
  readonly waits: number[];
  /** Requests whose call to an object failed (answered with an error, not admitted). */
  failed: number;
  /** Lease ids whose settlement was in a call that failed before reaching the object. */
  readonly lostSettlements: Set<string>;
  /** Lease ids whose settlement reached the object (at any time). */
  readonly settled: Set<string>;
  /** One request arriving at `at` at isolate `isolate`, through `windows`. */
  request(at: number, isolate: number, windows: readonly RateWindow[]): void;
}

/**
 * Faults of the calls to the objects until `untilMs`: a `slow` share answers only after `slowMs`
 * (past the holder's abandoned-call time), a `failing` share fails, half of them before the object
 * saw the call and half after it acted (the answer lost on the way back).
 */
export interface CallFaults {
  readonly slow: number;
  readonly slowMs: number;
  readonly failing: number;
  readonly untilMs: number;
}

/**
 * `isolateCount` holders, each with its own clock skew, reaching the ledgers over a wire that takes
 * between `minDelayMs` and `maxDelayMs` each way, with `faults` if given.
 */
export function platform(seed: number, isolateCount: number, minDelayMs = 1, maxDelayMs = 40, faults?: CallFaults): Platform {
  const simulation = new Simulation();
  const draw = seededRandom(seed);
  const delay = () => minDelayMs + draw() * (maxDelayMs - minDelayMs);
  const admitted = new Map<string, number[]>();
  const recorded = new Map<string, number[]>();
  const ledgers = new Map<string, WindowLedger>();
  const push = (map: Map<string, number[]>, key: string, at: number) => {
    const list = map.get(key) ?? [];
    list.push(at);
    map.set(key, list);
  };
  const ledger = (key: string) => {
    let found = ledgers.get(key);
    if (!found) {
      found = new WindowLedger([], [], {
        admitted: (admission) => push(recorded, key, admission.at),
        expired: () => {},
        givenBack: () => {},
        leased: () => {},
        closed: () => {},
      });
      ledgers.set(key, found);
    }
    return found;
  };
  const lostSettlements = new Set<string>();
  const settled = new Set<string>();
  const callsByScope = new Map<string, number>();
  const callsByKind = new Map<string, number>();
  const counters: LeaseCounters = (window, want, settlements, continuing) =>
    new Promise((resolve, reject) => {
      callsByScope.set(window.scope, (callsByScope.get(window.scope) ?? 0) + 1);
      const held = ledgers.get(window.key)?.leases.find((lease) => lease.id === continuing);
      const kind = want === 0 ? "return" : !held ? "grant" : want > held.slots ? "growth" : "renewal";
      callsByKind.set(`${window.scope} ${kind}`, (callsByKind.get(`${window.scope} ${kind}`) ?? 0) + 1);
      const faulty = faults !== undefined && simulation.now < faults.untilMs;
      const fault = faulty ? draw() : 1;
      const slow = faulty && draw() < faults.slow;
      if (fault < (faults?.failing ?? 0) / 2) {
        for (const settlement of settlements) lostSettlements.add(settlement.leaseId);
        simulation.at(simulation.now + delay(), () => reject(new Error("the object could not be reached")));
        return;
      }
      simulation.at(simulation.now + delay(), () => {
        try {
          const grant = ledger(window.key).lease(simulation.now, window.limit, window.windowMs, want, settlements, continuing);
          for (const settlement of settlements) settled.add(settlement.leaseId);
          const back = simulation.now + (slow ? (faults?.slowMs ?? 0) : delay());
          if (fault < (faults?.failing ?? 0)) simulation.at(back, () => reject(new Error("the answer was lost")));
          else simulation.at(back, () => resolve(grant));
        } catch (failure) {
          reject(failure);
        }
      });
    });
  const isolates = Array.from({ length: isolateCount }, () => {
    // Isolates' clocks disagree with each other and with the objects': leases use only differences.
    const skew = Math.round((draw() - 0.5) * 10_000);
    return new LeaseHolder(() => simulation.now + skew);
  });
  const world: Platform = {
    simulation,
    admitted,
    recorded,
    ledgers,
    isolates,
    refused: 0,
    callsByScope,
    callsByKind,
    waits: [],
    failed: 0,
    lostSettlements,
    settled,
    request(at, isolate, windows) {
      const holder = isolates[isolate] as LeaseHolder;
      simulation.at(at, () => {
        void holder
          .admit(windows, {
            counters,
            pause: () => new Promise((resolve) => simulation.at(simulation.now + 1, resolve)),
            defer: (delayMs, task) => simulation.at(simulation.now + delayMs, () => void task()),
          })
          .then(
            (admittance) => {
              world.waits.push(simulation.now - at);
              if (!admittance.allowed) world.refused += 1;
              else for (const window of windows) push(admitted, window.key, simulation.now);
            },
            // The call to the object failed: the gateway answers the request with an error, nothing admitted.
            () => {
              world.failed += 1;
            },
          );
      });
    },
  };
  return world;
}

export const routeWindow = (key: string, limit: number): RateWindow => ({ scope: "route", key, limit, windowMs: WINDOW_MS });

/** The most admissions any span of `WINDOW_MS` holds (times sorted). */
export function busiestWindow(times: readonly number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  let busiest = 0;
  let start = 0;
  for (let end = 0; end < sorted.length; end++) {
    while ((sorted[end] as number) - (sorted[start] as number) >= WINDOW_MS) start++;
    busiest = Math.max(busiest, end - start + 1);
  }
  return busiest;
}

export function admittedBetween(times: readonly number[], from: number, to: number): number {
  return times.filter((at) => at >= from && at < to).length;
}

/** Runs past the end of the longest lease plus the window, so that no lease counts anywhere any more. */
export async function settleEverything(world: Platform, end: number) {
  await world.simulation.runUntil(end + LONGEST_LEASE_MS + 2 * WINDOW_MS);
  const uncounted = Number.MAX_SAFE_INTEGER;
  for (const ledger of world.ledgers.values()) {
    expect(ledger.peek(world.simulation.now, uncounted, WINDOW_MS).remaining).toBe(uncounted);
    expect(ledger.leases).toEqual([]);
  }
}

/**
 * Whether every admission a ledger recorded stands for an admission an isolate made, each its own,
 * at or shortly (`lagMs`) after it: nothing is recorded for a refusal or an unused slot. Admissions
 * a lease made that were not recorded (it lapsed, or they had left the window when it was settled)
 * counted in the window through the lease until its end plus the window.
 */
export function recordsStandForAdmissions(recorded: readonly number[], admitted: readonly number[], lagMs: number): boolean {
  const uses = [...admitted].sort((a, b) => a - b);
  let next = 0;
  for (const at of [...recorded].sort((a, b) => a - b)) {
    while (next < uses.length && (uses[next] as number) < at - lagMs) next++;
    if (next >= uses.length || (uses[next] as number) > at) return false;
    next++;
  }
  return true;
}
