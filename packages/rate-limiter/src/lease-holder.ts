import { LEASE_MS, type LeaseGrant, type Settlement } from "./window-ledger";
import type { Admittance, RateWindow, RefusingWindow, TightestWindow } from "./window-types";

/**
 * The counters' Durable Objects as an isolate reaches them: settle, then lease up to `want` slots,
 * or resize the lease `continuing` names (`WindowLedger.lease`).
 */
export type LeaseCounters = (
  window: RateWindow,
  want: number,
  settlements: Settlement[],
  continuing: string | null,
) => Promise<LeaseGrant>;

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
   * still gives its unused slots back when its leases end, and how a lease is renewed off the
   * request's path.
   */
  readonly defer?: (delayMs: number, task: () => Promise<void>) => void;
}

/** A call to an object that waits longer than this is taken for lost (its request was cancelled): waiters ask again. */
const ABANDONED_CALL_MS = 2_000;

/**
 * Leases up to this long are a nearly full window's (`leaseDuration`): their unused slots go back
 * when they end, by a timer within the reach of `waitUntil`. Longer ones are a roomy window's: they
 * are renewed ahead of their end while used, and otherwise left to lapse (their slots stop counting
 * at their end plus the window), since a call of its own would cost more than the slots are worth.
 */
const RETURNED_LEASE_MS = 20_000;

/** A long lease used in the last this-th of its time is renewed, off the request's path. */
const RENEW_AHEAD_SHARE = 10;

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
  endsAt: number;
  slots: number;
  /** Whether the object last granted it as a short lease (`RETURNED_LEASE_MS`): returned when it ends, not renewed. */
  short: boolean;
  /** From when a use renews a long lease ahead of its end; null once a renewal is under way. */
  renewFrom: number | null;
  /**
   * While a call continuing the lease is out: when it was sent and the size asked. Until the answer,
   * the lease admits at most that many (and its slots) in any span of the window, and only for
   * `LEASE_MS` after the sending, the least the object leaves a lease it resizes.
   */
  resizing: { readonly sentAt: number; readonly want: number } | null;
  /** Times of the admissions still in the window, oldest first from `oldest`: at most `slots`. */
  uses: number[];
  oldest: number;
  /** Admissions made under the lease since it was granted, for its pace. */
  admitted: number;
  /** What the object reported of everyone else's share when it last answered. */
  remainingElsewhere: number;
  elsewhereFreesAt: number | null;
}

/**
 * A settlement not yet reported, until when its lease counts at the object at the latest (isolate
 * clock), and whether it is worth a call of its own (a short lease's, see `RETURNED_LEASE_MS`).
 */
interface OwedSettlement {
  readonly settlement: Settlement;
  readonly countsUntil: number;
  readonly returned: boolean;
}

/** One counter key as this isolate sees it. */
interface CounterState {
  /** The window the key counts, as the last request named it. */
  window: RateWindow;
  lease: HeldLease | null;
  /** Leases finished with, reported on the next call to the object. */
  owed: OwedSettlement[];
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
 * parallel. A lease is a share of a window: at most its `slots` admissions in any span of the
 * window, so a long lease serves a key the isolate sees rarely for many requests. Slots are taken
 * from every window at once, after every call has returned, so a refused request takes nothing:
 * the slots it would have used stay in their leases. Pure apart from the injected clock and
 * `RequestIo`, so that simulations can run many isolates.
 */
export class LeaseHolder {
  readonly #clock: () => number;
  readonly #counters = new Map<string, CounterState>();
  /** When the last short lease held ends, and when the latest scheduled return of ended leases runs. */
  #lastLeaseEnd = Number.NEGATIVE_INFINITY;
  #returnAt = Number.NEGATIVE_INFINITY;
  /** Durable Object calls made (grants, renewals, returns), for the calls-per-request figures. */
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
        if (lacking.length === 0) return this.#take(windows, now, io);
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
   * Settles every short lease that has ended and may still count at its object: unused slots go
   * back, with the settlements of long leases to the same objects. Keys with nothing held or owed
   * are forgotten, so the isolate's memory follows its traffic.
   */
  async returnEnded(counters: LeaseCounters): Promise<void> {
    const now = this.#clock();
    const calls: Promise<unknown>[] = [];
    for (const [key, state] of this.#counters) {
      this.#holdsSlot(state, now);
      if (state.calling) continue;
      state.owed = state.owed.filter((owed) => owed.countsUntil > now);
      if (state.owed.some((owed) => owed.returned)) calls.push(this.#call(state, 0, counters));
      else if (!state.lease && state.owed.length === 0 && state.waiting === 0) this.#counters.delete(key);
    }
    // A settlement whose call failed stays owed, for the next call to its object.
    await Promise.allSettled(calls);
  }

  #state(window: RateWindow): CounterState {
    let state = this.#counters.get(window.key);
    if (!state) {
      state = { window, lease: null, owed: [], calling: null, waiting: 0, demand: 1 };
      this.#counters.set(window.key, state);
    }
    state.window = window;
    return state;
  }

  /** Whether the key's lease has a slot now; a lease past its end is set aside for settling. */
  #holdsSlot(state: CounterState, now: number): boolean {
    const lease = state.lease;
    if (!lease) return false;
    const resizing = lease.resizing;
    if (now >= (resizing ? Math.min(lease.endsAt, resizing.sentAt + LEASE_MS) : lease.endsAt)) {
      this.#retire(state, lease, now);
      return false;
    }
    const slots = resizing ? Math.min(lease.slots, resizing.want) : lease.slots;
    return this.#inWindow(lease, now, state.window.windowMs) < slots;
  }

  /** The lease's admissions still in the window: those made within `windowMs` before `now`. */
  #inWindow(lease: HeldLease, now: number, windowMs: number): number {
    while (lease.oldest < lease.uses.length && (lease.uses[lease.oldest] as number) <= now - windowMs) lease.oldest++;
    if (lease.oldest > 32 && lease.oldest * 2 > lease.uses.length) {
      lease.uses = lease.uses.slice(lease.oldest);
      lease.oldest = 0;
    }
    return lease.uses.length - lease.oldest;
  }

  /**
   * Owes the lease's settlement (its admissions still in the window) to the object and sizes the
   * next lease from the pace it met.
   */
  #retire(state: CounterState, lease: HeldLease, now: number): void {
    const windowMs = state.window.windowMs;
    this.#inWindow(lease, now, windowMs);
    state.lease = null;
    const usedAfterMs = lease.uses.slice(lease.oldest).map((at) => at - lease.askedAt);
    state.owed.push({
      settlement: { leaseId: lease.id, usedAfterMs },
      countsUntil: lease.endsAt + windowMs,
      returned: lease.short,
    });
    state.demand = Math.max(1, this.#pace(lease, now, windowMs));
  }

  /**
   * Slots the lease's pace needs: its admissions over the time it has run, scaled to its length or
   * the window, whichever is shorter (the most it admits in any span of the window), a quarter more;
   * at most sixteen times its slots, so that two requests arriving together do not read as an
   * endless rate.
   */
  #pace(lease: HeldLease, now: number, windowMs: number): number {
    const span = Math.min(lease.endsAt - lease.askedAt, windowMs);
    const elapsedMs = Math.max(1, Math.min(now, lease.endsAt) - lease.askedAt);
    return Math.min(lease.slots * 16, Math.ceil((lease.admitted * span * 1.25) / elapsedMs));
  }

  /** Takes one slot of every window (each holds one), reports the tightest and renews long leases near their end. */
  #take(windows: readonly RateWindow[], now: number, io: RequestIo): Admittance {
    let tightest: TightestWindow | null = null;
    let tightestResetMs = 0;
    for (const window of windows) {
      const state = this.#state(window);
      const lease = state.lease as HeldLease;
      lease.uses.push(now);
      lease.admitted += 1;
      const remaining = lease.remainingElsewhere + lease.slots - (lease.uses.length - lease.oldest);
      const ownFreesAt = (lease.uses[lease.oldest] as number) + window.windowMs;
      // A slot other isolates held may have freed already (a lease granted long ago on a slow machine): never a reset in the past.
      const resetMs = Math.max(0, Math.min(lease.elsewhereFreesAt ?? ownFreesAt, ownFreesAt) - now);
      // Least remaining wins; on a tie, the window that takes longer to free a slot is the tighter.
      if (!tightest || remaining < tightest.remaining || (remaining === tightest.remaining && resetMs > tightestResetMs)) {
        const { scope, limit, windowMs } = window;
        tightest = { scope, limit, remaining, resetSeconds: Math.ceil(resetMs / 1000), windowMs };
        tightestResetMs = resetMs;
      }
      if (lease.renewFrom !== null && now >= lease.renewFrom && !state.calling && io.defer) {
        lease.renewFrom = null;
        const renew = async () => {
          // By then a request may have asked, or the lease ended: nothing to renew.
          const at = this.#clock();
          if (state.calling || state.lease !== lease || at >= lease.endsAt) return;
          // A lease shrinks to the pace it met once that needs less than half its slots (never below
          // what it holds in the window): slots a roomy window can spare are not worth a call.
          const pace = Math.max(1, this.#inWindow(lease, at, window.windowMs), this.#pace(lease, at, window.windowMs));
          const want = pace * 2 <= lease.slots ? pace : lease.slots;
          await this.#call(state, want, io.counters).catch(() => undefined);
        };
        io.defer(0, renew);
      }
    }
    return { allowed: true, tightest: tightest as TightestWindow };
  }

  /**
   * Gets the key a slot: waits for the call in flight (polling, see `RequestIo`), or makes one,
   * growing the lease held (its slots all in the window) or asking for a new one. Null once slots
   * may be there; the refusal otherwise.
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
      // A lease still held has its slots all in the window: it doubles (or grows by the requests
      // waiting); one used up sooner than the shortest lease lasts is a burst's, sized by its pace.
      const lease = state.lease;
      const now = this.#clock();
      const doubled = lease ? lease.slots + Math.max(state.waiting, lease.slots) : 0;
      const want = !lease
        ? Math.max(state.waiting, state.demand)
        : now - lease.askedAt < LEASE_MS
          ? Math.max(doubled, this.#pace(lease, now, window.windowMs))
          : doubled;
      return await this.#call(state, want, io.counters);
    } finally {
      state.waiting -= 1;
    }
  }

  /**
   * One call to the key's object: the settlements owed, and a grant of `want` slots in all (a
   * resizing of the lease held, if it is still live). A refusal when more slots were wanted and the
   * object had none to add.
   */
  async #call(state: CounterState, want: number, counters: LeaseCounters): Promise<RefusingWindow | null> {
    const window = state.window;
    const askedAt = this.#clock();
    const owed = state.owed.filter((settlement) => settlement.countsUntil > askedAt);
    state.owed = [];
    // A lease past its end is retired (its settlement owed, and sent now), not continued. Nor is a
    // live one by a call that only returns settlements (`returnEnded`, want 0): the object would
    // close it, and the admissions the isolate made with it would stop counting there before the
    // isolate settled them.
    this.#holdsSlot(state, askedAt);
    const held = want === 0 ? null : state.lease;
    if (held) held.resizing = { sentAt: askedAt, want };
    const call: CounterCall = { startedAt: askedAt, outcome: null };
    state.calling = call;
    this.calls += 1;
    try {
      const grant = await counters(
        window,
        want,
        owed.map((settlement) => settlement.settlement),
        held?.id ?? null,
      );
      const receivedAt = this.#clock();
      if (held) held.resizing = null;
      if (grant.leaseId && grant.leaseId === held?.id) {
        // Resized. If the lease ended here meanwhile, its settlement is owed and closes it at the object: it is not used again.
        held.slots = grant.slots;
        held.endsAt = askedAt + grant.durationMs;
        this.#granted(held, grant, receivedAt);
      } else {
        // A lease still held (the object no longer counted it, or a call taken for lost came back after all) is settled, not dropped.
        if (held && state.lease === held) this.#retire(state, held, receivedAt);
        if (grant.leaseId && state.lease) {
          // A newer lease is held already: this one goes back unused.
          const countsUntil = askedAt + grant.durationMs + window.windowMs;
          state.owed.push({ settlement: { leaseId: grant.leaseId, usedAfterMs: [] }, countsUntil, returned: true });
        } else if (grant.leaseId) {
          const lease: HeldLease = {
            id: grant.leaseId,
            askedAt,
            endsAt: askedAt + grant.durationMs,
            slots: grant.slots,
            short: true,
            renewFrom: null,
            resizing: null,
            uses: [],
            oldest: 0,
            admitted: 0,
            remainingElsewhere: 0,
            elsewhereFreesAt: null,
          };
          state.lease = lease;
          this.#granted(lease, grant, receivedAt);
        }
      }
      let refusal: RefusingWindow | null = null;
      if (grant.retryAfterMs > 0) {
        const { scope, limit, windowMs } = window;
        // The isolate's own admissions free its slots too, which the object does not see.
        const ownFreesAt = state.lease ? state.lease.uses[state.lease.oldest] : undefined;
        const ownRetryMs = ownFreesAt === undefined ? grant.retryAfterMs : ownFreesAt + windowMs - receivedAt;
        refusal = { scope, limit, windowMs, retryAfterMs: Math.max(1, Math.min(grant.retryAfterMs, ownRetryMs)) };
      }
      call.outcome = { refusal };
      return refusal;
    } catch (failure) {
      // Settling twice is harmless (the object ignores a lease it no longer has); losing a settlement is not.
      state.owed.unshift(...owed);
      // The object may have resized the lease or not: it keeps the lesser size and end of the two.
      if (held?.resizing) {
        held.slots = Math.min(held.slots, held.resizing.want);
        held.endsAt = Math.min(held.endsAt, held.resizing.sentAt + LEASE_MS);
        held.resizing = null;
      }
      call.outcome = { failure };
      throw failure;
    } finally {
      if (state.calling === call) state.calling = null;
    }
  }

  /** Records what the object answered of a lease: everyone else's share, and how the lease ends. */
  #granted(lease: HeldLease, grant: LeaseGrant, receivedAt: number): void {
    lease.remainingElsewhere = grant.remaining;
    lease.elsewhereFreesAt = grant.resetMs === null ? null : receivedAt + grant.resetMs;
    lease.short = grant.durationMs <= RETURNED_LEASE_MS;
    if (lease.short) {
      lease.renewFrom = null;
      this.#lastLeaseEnd = Math.max(this.#lastLeaseEnd, lease.endsAt);
    } else lease.renewFrom = lease.endsAt - grant.durationMs / RENEW_AHEAD_SHARE;
  }

  /** Schedules the return of the short leases held now for when the last of them ends, unless one is scheduled as late. */
  #scheduleReturn(io: RequestIo): void {
    if (!io.defer || this.#lastLeaseEnd <= this.#returnAt) return;
    this.#returnAt = this.#lastLeaseEnd;
    // One millisecond after the end: a lease is over once the clock has passed `endsAt`.
    io.defer(Math.max(0, this.#returnAt - this.#clock()) + 1, () => this.returnEnded(io.counters));
  }
}
