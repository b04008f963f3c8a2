import { type Admission, type AdmissionJournal, type Reservation, SlidingWindowLog, type WindowDecision } from "./sliding-window";

/**
 * A share of one window's slots that the counter's Durable Object reserved for one gateway isolate:
 * the isolate admits at most `slots` requests under it in any span of the window, from the grant
 * until `endsAt`. Until the isolate settles it, all `slots` count in the window from the grant until
 * `endsAt` plus the window, whether used or not: whenever within the lease a slot is used, the
 * admission stays in every sliding window the object counts it in, so no window admits more than its
 * budget across any number of isolates. A lease shorter than the window is a batch of `slots`
 * admissions; a longer one is reused as its admissions leave the window. Settling replaces the lease
 * by its admissions still in the window, at the times they were made.
 */
export interface Lease {
  readonly id: string;
  readonly grantedAt: number;
  readonly endsAt: number;
  readonly slots: number;
}

/** What an isolate reports of a lease it has finished with: when each admission still in the window was made. */
export interface Settlement {
  readonly leaseId: string;
  /** Ms after the isolate asked for the lease, one entry per admission; the isolate asked before the grant. */
  readonly usedAfterMs: readonly number[];
}

/** The object's answer to an isolate asking for slots. */
export interface LeaseGrant {
  /** Null when nothing was granted: the window is full, or the call only settled. The same id when a lease was continued. */
  readonly leaseId: string | null;
  /** The lease's slots (for a continued lease, its new size). */
  readonly slots: number;
  /** Ms from the object's now until the lease ends. */
  readonly durationMs: number;
  /** Slots left in the window for anyone else once this lease is counted. */
  readonly remaining: number;
  /** Ms until the earliest slot counted before this grant leaves the window; null if none was. */
  readonly resetMs: number | null;
  /** 0 when granted; otherwise the ms until a slot frees. */
  readonly retryAfterMs: number;
}

/** Receives every change, so that the object's SQLite copy stays identical to the memory one. */
export interface LedgerJournal extends AdmissionJournal {
  leased(lease: Lease): void;
  /** The lease was settled, or every use it could have had has left the window. */
  closed(leaseId: string): void;
}

/** The shortest lease, a nearly full window's: its unused slots come back within seconds. */
export const LEASE_MS = 2_000;

/**
 * The longest lease, a window that is mostly free: an isolate that sees a key once a minute or less
 * (one key's traffic spread over many isolates) reuses its lease for many requests instead of asking
 * the object for each. What it costs is headroom: an unused slot stays counted until the lease ends
 * plus the window, which is why only a window with room to spare gets long leases.
 */
export const LONGEST_LEASE_MS = 30 * 60_000;

/** Free share of the window (after the grant) at or below which leases are the shortest, and from which they are the longest. */
const TIGHT_SHARE = 0.1;
const ROOMY_SHARE = 0.5;

/**
 * How long a lease lasts, from how much of the window is still free once it is granted (or
 * continued): the shortest below a tenth, the longest from half, geometrically in between. A lease
 * of the longest length left half the window free, counting every lease out, so such leases hold at
 * most half the budget between them: what they lock up when an isolate stops using its share (or a
 * deploy replaces the isolate) is at most half the budget, for at most the longest lease plus the
 * window, while the other half goes out in shorter leases, down to slot by slot.
 */
export function leaseDuration(remaining: number, limit: number): number {
  const room = Math.min(1, Math.max(0, (remaining / limit - TIGHT_SHARE) / (ROOMY_SHARE - TIGHT_SHARE)));
  return Math.round(LEASE_MS * (LONGEST_LEASE_MS / LEASE_MS) ** room);
}

/**
 * A lease takes at most this fraction of the free slots: leases shrink as the window fills, down to
 * one slot, so a nearly full window is served slot by slot, as without leases.
 */
const FREE_SHARE = 4;

/**
 * The state of one counter (one window): the exact log of settled admissions and the leases still
 * out. Pure and clock-injected (`now` in every call); the Durable Object adds storage and RPC.
 */
export class WindowLedger {
  readonly #log: SlidingWindowLog;
  readonly #leases = new Map<string, Lease>();
  readonly #journal: LedgerJournal | undefined;

  constructor(admissions: Iterable<Admission> = [], leases: Iterable<Lease> = [], journal?: LedgerJournal) {
    this.#log = new SlidingWindowLog(admissions, journal);
    for (const lease of leases) this.#leases.set(lease.id, lease);
    this.#journal = journal;
  }

  /** Leases out, for tests and diagnostics. */
  get leases(): readonly Lease[] {
    return [...this.#leases.values()];
  }

  /** Admissions settled and still in the window (leases not included). */
  admissions(now: number, windowMs: number): number {
    return this.#log.count(now, windowMs);
  }

  /** One slot used at once (no lease): the failed-authentication and sign-in windows. */
  take(now: number, limit: number, windowMs: number): WindowDecision {
    return this.#log.take(now, limit, windowMs, this.#reserved(now, windowMs));
  }

  /** Gives back one slot `take` admitted (its `token`): the window counts it no more. */
  giveBack(token: string): boolean {
    return this.#log.giveBack(token);
  }

  peek(now: number, limit: number, windowMs: number): WindowDecision {
    return this.#log.peek(now, limit, windowMs, this.#reserved(now, windowMs));
  }

  /**
   * Settles what the isolate has finished with, then leases it up to `want` slots (none for a
   * `want` of 0): as many as asked, but at most a `FREE_SHARE`-th of the free slots and at least one,
   * for as long as `leaseDuration` gives from what stays free.
   *
   * `continuing` names the lease the isolate holds, which it goes on using while the call is out
   * (at most `min(slots, want)` admissions in any span of the window, and for at most `LEASE_MS`):
   * the lease is resized to `want` (shrunk at once, grown by the same share of the free slots) and
   * ends `leaseDuration` from now, sooner or later than it did. Both are exact: what the isolate may
   * admit before the answer is back fits the new size and the new end. A lease the object no longer
   * counts is not continued: a new one is granted instead.
   */
  lease(
    now: number,
    limit: number,
    windowMs: number,
    want: number,
    settlements: readonly Settlement[],
    continuing: string | null = null,
  ): LeaseGrant {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`limit must be a positive integer, got ${limit}`);
    if (!(windowMs > 0)) throw new RangeError(`windowMs must be positive, got ${windowMs}`);
    for (const settlement of settlements) this.#settle(now, windowMs, settlement);
    // Everyone else's share: the log and the other leases. The continued lease's own slots free as
    // its admissions leave the window, which only the isolate knows.
    const others = this.#log.peek(now, limit, windowMs, this.#reserved(now, windowMs, continuing));
    const held = continuing === null ? undefined : this.#leases.get(continuing);
    const own = held?.slots ?? 0;
    const counted = others.allowed ? limit - others.remaining : limit;
    const resetMs = counted === 0 ? null : others.resetMs;
    const free = others.allowed ? others.remaining : 0;
    const wanted = Math.max(0, Math.floor(want));
    const growable = Math.max(0, free - own);
    const added = wanted > own && growable > 0 ? Math.min(wanted - own, Math.max(1, Math.floor(growable / FREE_SHARE))) : 0;
    const slots = Math.min(own, wanted) + added;
    const remaining = Math.max(0, free - slots);
    // Refused: until a slot of everyone else's frees (the window at most, when the isolate's own lease holds them all).
    const retryAfterMs =
      wanted <= own || added > 0 ? 0 : others.allowed ? (counted > 0 ? others.resetMs : windowMs) : others.retryAfterMs;
    if (slots === 0) {
      if (held) this.#close(held.id);
      return { leaseId: null, slots: 0, durationMs: 0, remaining, resetMs, retryAfterMs };
    }
    const durationMs = leaseDuration(remaining, limit);
    const lease: Lease = {
      id: held?.id ?? crypto.randomUUID(),
      grantedAt: held?.grantedAt ?? now,
      endsAt: now + durationMs,
      slots,
    };
    this.#leases.set(lease.id, lease);
    this.#journal?.leased(lease);
    return { leaseId: lease.id, slots, durationMs, remaining, resetMs, retryAfterMs };
  }

  /**
   * The admissions become the log's at the object's time of the grant plus the isolate's offset:
   * never earlier than the real use, since the isolate started counting before the grant. An
   * unknown lease (settled already, or out of the window entirely) changes nothing.
   */
  #settle(now: number, windowMs: number, { leaseId, usedAfterMs }: Settlement): void {
    const lease = this.#leases.get(leaseId);
    if (!lease) return;
    this.#close(leaseId);
    for (const [index, offset] of usedAfterMs.slice(0, lease.slots).entries()) {
      const at = Math.min(lease.endsAt, lease.grantedAt + Math.max(0, offset));
      this.#log.record({ token: `${leaseId}.${index}`, at }, now, windowMs);
    }
  }

  /**
   * The leases that still count (but `excluded`), sorted by when they stop counting; those that no
   * longer count are dropped.
   */
  #reserved(now: number, windowMs: number, excluded: string | null = null): Reservation[] {
    const reserved: Reservation[] = [];
    for (const lease of this.#leases.values()) {
      const until = lease.endsAt + windowMs;
      if (until <= now) this.#close(lease.id);
      else if (lease.id !== excluded) reserved.push({ until, slots: lease.slots });
    }
    return reserved.sort((a, b) => a.until - b.until);
  }

  #close(leaseId: string): void {
    this.#leases.delete(leaseId);
    this.#journal?.closed(leaseId);
  }
}
