import type { LeaseGrant, Settlement } from "./window-ledger";
import type { Admittance, RateWindow, RefusingWindow, TightestWindow } from "./window-types";

/** The counters' Durable Objects as an isolate reaches them: settle, then lease up to `want` slots. */
export type LeaseCounters = (window: RateWindow, want: number, settlements: Settlement[]) => Promise<LeaseGrant>;

/**
 * What the holder does through the request it serves. The Workers runtime lets a request await
 * only its own I/O, so a request never awaits another's call to an object: it waits with `pause`
 * (a timer of its own) until the call's outcome is in the holder's memory.
 */
export interface RequestIo {
  readonly counters: LeaseCounters;
  /** Waits a moment (a millisecond) on the request's own timer. */
  readonly pause: () => Promise<void>;
  /**
   * Runs `task` after `delayMs`, kept alive past the response (`waitUntil`): how an idle isolate
   * still gives its unused slots back when its leases end.
   */
  readonly defer?: (delayMs: number, task: () => Promise<void>) => void;
}

/** A call to an object that waits longer than this is taken for lost (its request was cancelled): waiters ask again. */
const ABANDONED_CALL_MS = 2_000;

/** A call to a counter's object; its outcome, once there, is what every request waiting on it reads. */
interface CounterCall {
  readonly startedAt: number;
  outcome: { readonly refusal: RefusingWindow | null } | { readonly failure: unknown } | null;
}

/** A lease as the isolate holds it; times are the isolate's clock. */
interface HeldLease {
  readonly id: string;
  /** When the isolate asked: never after the object's grant, so offsets from it never make a use look earlier. */
  readonly askedAt: number;
  readonly endsAt: number;
  readonly slots: number;
  readonly usedAfterMs: number[];
  /** What the object reported of everyone else's share when it granted. */
  readonly remainingElsewhere: number;
  readonly elsewhereFreesAt: number | null;
}

/** One counter key as this isolate sees it. */
interface CounterState {
  /** The window the key counts, as the last request named it. */
  window: RateWindow;
  lease: HeldLease | null;
  /** Leases finished with, reported on the next call to the object. */
  settlements: Settlement[];
  /** The call to the object in flight, if any: one at a time per key, so settlements and grants keep their order. */
  calling: CounterCall | null;
  /** Requests waiting for a slot of this key. */
  waiting: number;
  /** Slots to ask for next, from the demand the last lease met. */
  demand: number;
}

/**
 * The isolate's side of the leases (DESIGN.md section 4): admits a request locally while it holds
 * a slot of every window that applies, and otherwise asks the objects it lacks a slot of, in
 * parallel. Slots are taken from every window at once, after every call has returned, so a refused
 * request takes nothing: the slots it would have used stay in their leases. Pure apart from the
 * injected clock and `RequestIo`, so that simulations can run many isolates.
 */
export class LeaseHolder {
  readonly #clock: () => number;
  readonly #counters = new Map<string, CounterState>();
  /** When the last lease held ends, and when the latest scheduled return of ended leases runs. */
  #lastLeaseEnd = Number.NEGATIVE_INFINITY;
  #returnAt = Number.NEGATIVE_INFINITY;
  /** Durable Object calls made, for the benchmark's calls-per-request figure. */
  calls = 0;

  constructor(clock: () => number = Date.now) {
    this.#clock = clock;
  }

  async admit(windows: readonly RateWindow[], io: RequestIo): Promise<Admittance> {
    if (windows.length === 0) throw new RangeError("admit needs at least one window");
    try {
      for (;;) {
        const now = this.#clock();
        const lacking = windows.filter((window) => !this.#holdsSlot(this.#state(window), now));
        if (lacking.length === 0) return this.#take(windows, now);
        const refusals = (await Promise.all(lacking.map((window) => this.#replenish(window, io)))).filter(
          (refusal): refusal is RefusingWindow => refusal !== null,
        );
        if (refusals.length > 0) {
          // The window that frees last is the one to wait for.
          const longest = refusals.reduce((a, b) => (b.retryAfterMs > a.retryAfterMs ? b : a));
          return { allowed: false, refusing: longest };
        }
      }
    } finally {
      this.#scheduleReturn(io);
    }
  }

  /**
   * Settles every lease that has ended and was not settled by a grant since: unused slots go back.
   * Keys with nothing held or owed are forgotten, so the isolate's memory follows its traffic.
   */
  async returnEnded(counters: LeaseCounters): Promise<void> {
    const now = this.#clock();
    const calls: Promise<unknown>[] = [];
    for (const [key, state] of this.#counters) {
      this.#holdsSlot(state, now);
      if (state.calling) continue;
      if (state.settlements.length > 0) calls.push(this.#call(state, 0, counters));
      else if (!state.lease && state.waiting === 0) this.#counters.delete(key);
    }
    // A settlement whose call failed stays queued for the next call to its object.
    await Promise.allSettled(calls);
  }

  #state(window: RateWindow): CounterState {
    let state = this.#counters.get(window.key);
    if (!state) {
      state = { window, lease: null, settlements: [], calling: null, waiting: 0, demand: 1 };
      this.#counters.set(window.key, state);
    }
    state.window = window;
    return state;
  }

  /** Whether the key's lease has a slot now; a lease used up or past its end is set aside for settling. */
  #holdsSlot(state: CounterState, now: number): boolean {
    const lease = state.lease;
    if (!lease) return false;
    if (now < lease.endsAt && lease.usedAfterMs.length < lease.slots) return true;
    this.#retire(state, lease, now);
    return false;
  }

  /**
   * Queues the lease's settlement and sizes the next one from the demand it met: a lease that ran
   * to its end asks for a quarter more than its uses; one used up early, for what its pace would
   * use in a whole lease (a quarter more, and at most sixteen times its slots, so that two requests
   * arriving together do not read as an endless rate).
   */
  #retire(state: CounterState, lease: HeldLease, now: number): void {
    state.lease = null;
    state.settlements.push({ leaseId: lease.id, usedAfterMs: lease.usedAfterMs });
    const used = lease.usedAfterMs.length;
    const durationMs = lease.endsAt - lease.askedAt;
    const elapsedMs = Math.max(1, now - lease.askedAt);
    state.demand =
      used >= lease.slots && now < lease.endsAt
        ? Math.min(lease.slots * 16, Math.ceil((used * durationMs * 1.25) / elapsedMs))
        : Math.max(1, Math.ceil(used * 1.25));
  }

  /** Takes one slot of every window (each holds one) and reports the tightest. */
  #take(windows: readonly RateWindow[], now: number): Admittance {
    let tightest: TightestWindow | null = null;
    let tightestResetMs = 0;
    for (const window of windows) {
      const state = this.#state(window);
      const lease = state.lease as HeldLease;
      lease.usedAfterMs.push(now - lease.askedAt);
      const remaining = lease.remainingElsewhere + lease.slots - lease.usedAfterMs.length;
      const ownFreesAt = lease.askedAt + (lease.usedAfterMs[0] as number) + window.windowMs;
      // A slot other isolates held may have freed already (a lease granted long ago on a slow machine): never a reset in the past.
      const resetMs = Math.max(0, Math.min(lease.elsewhereFreesAt ?? ownFreesAt, ownFreesAt) - now);
      // Least remaining wins; on a tie, the window that takes longer to free a slot is the tighter.
      if (!tightest || remaining < tightest.remaining || (remaining === tightest.remaining && resetMs > tightestResetMs)) {
        const { scope, limit, windowMs } = window;
        tightest = { scope, limit, remaining, resetSeconds: Math.ceil(resetMs / 1000), windowMs };
        tightestResetMs = resetMs;
      }
      if (lease.usedAfterMs.length >= lease.slots) this.#retire(state, lease, now);
    }
    return { allowed: true, tightest: tightest as TightestWindow };
  }

  /**
   * Gets the key a lease: waits for the call in flight (polling, see `RequestIo`), or makes one.
   * Null once slots may be there; the refusal otherwise.
   */
  async #replenish(window: RateWindow, io: RequestIo): Promise<RefusingWindow | null> {
    const state = this.#state(window);
    state.waiting += 1;
    try {
      const inFlight = state.calling;
      if (inFlight && this.#clock() - inFlight.startedAt < ABANDONED_CALL_MS) {
        while (!inFlight.outcome && this.#clock() - inFlight.startedAt < ABANDONED_CALL_MS) await io.pause();
        const outcome = inFlight.outcome;
        if (outcome && "failure" in outcome) throw outcome.failure;
        if (outcome) return outcome.refusal;
      }
      return await this.#call(state, Math.max(state.waiting, state.demand), io.counters);
    } finally {
      state.waiting -= 1;
    }
  }

  async #call(state: CounterState, want: number, counters: LeaseCounters): Promise<RefusingWindow | null> {
    const window = state.window;
    const settlements = state.settlements;
    state.settlements = [];
    const askedAt = this.#clock();
    const call: CounterCall = { startedAt: askedAt, outcome: null };
    state.calling = call;
    this.calls += 1;
    try {
      const grant = await counters(window, want, settlements);
      let refusal: RefusingWindow | null = null;
      if (grant.slots > 0 && grant.leaseId) {
        // A lease still held (a call taken for lost came back after all) is settled, not dropped.
        if (state.lease) this.#retire(state, state.lease, this.#clock());
        const receivedAt = this.#clock();
        state.lease = {
          id: grant.leaseId,
          askedAt,
          endsAt: askedAt + grant.durationMs,
          slots: grant.slots,
          usedAfterMs: [],
          remainingElsewhere: grant.remaining,
          elsewhereFreesAt: grant.resetMs === null ? null : receivedAt + grant.resetMs,
        };
        this.#lastLeaseEnd = Math.max(this.#lastLeaseEnd, state.lease.endsAt);
      } else if (want > 0) {
        const { scope, limit, windowMs } = window;
        refusal = { scope, limit, windowMs, retryAfterMs: grant.retryAfterMs };
      }
      call.outcome = { refusal };
      return refusal;
    } catch (failure) {
      // Settling twice is harmless (the object ignores a lease it no longer has); losing a settlement is not.
      state.settlements.unshift(...settlements);
      call.outcome = { failure };
      throw failure;
    } finally {
      if (state.calling === call) state.calling = null;
    }
  }

  /** Schedules the return of the leases held now for when the last of them ends, unless one is scheduled as late. */
  #scheduleReturn(io: RequestIo): void {
    if (!io.defer || this.#lastLeaseEnd <= this.#returnAt) return;
    this.#returnAt = this.#lastLeaseEnd;
    // One millisecond after the end: a lease is over once the clock has passed `endsAt`.
    io.defer(Math.max(0, this.#returnAt - this.#clock()) + 1, () => this.returnEnded(io.counters));
  }
}
