import { type Admission, type AdmissionJournal, type Reservation, SlidingWindowLog, type WindowDecision } from "./sliding-window";

/**
 * A batch of slots of one window that the counter's Durable Object reserved for one gateway isolate.
 * Until the isolate settles it, every slot counts in the window from the grant until `endsAt` plus
 * the window, whether used or not: whenever within the lease a slot is used, the admission stays in
 * every sliding window the object counts it in, so no window admits more than its budget across
 * any number of isolates. Settling replaces the lease by its used slots at the times they were used.
 */
export interface Lease {
  readonly id: string;
  readonly grantedAt: number;
  readonly endsAt: number;
  readonly slots: number;
}

/** What an isolate reports of a lease it has finished with: when each used slot was used. */
export interface Settlement {
  readonly leaseId: string;
  /** Ms after the isolate asked for the lease, one entry per used slot; the isolate asked before the grant. */
  readonly usedAfterMs: readonly number[];
}

/** The object's answer to an isolate asking for slots. */
export interface LeaseGrant {
  /** Null when nothing was granted: the window is full, or the call only settled. */
  readonly leaseId: string | null;
  readonly slots: number;
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

/** How long a lease lasts: short, so that unused slots come back soon and a lease never hides a change of pace. */
export const LEASE_MS = 2_000;

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
   * `want` of 0): as many as asked, but at most a `FREE_SHARE`-th of the free slots and at least one.
   */
  lease(now: number, limit: number, windowMs: number, want: number, settlements: readonly Settlement[]): LeaseGrant {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`limit must be a positive integer, got ${limit}`);
    if (!(windowMs > 0)) throw new RangeError(`windowMs must be positive, got ${windowMs}`);
    for (const settlement of settlements) this.#settle(now, windowMs, settlement);
    const decision = this.peek(now, limit, windowMs);
    const resetMs = decision.allowed && decision.remaining === limit ? null : decision.resetMs;
    const refused = { leaseId: null, slots: 0, durationMs: LEASE_MS, resetMs };
    if (!decision.allowed) return { ...refused, remaining: 0, retryAfterMs: decision.retryAfterMs };
    if (want < 1) return { ...refused, remaining: decision.remaining, retryAfterMs: 0 };

    const slots = Math.min(Math.floor(want), Math.max(1, Math.floor(decision.remaining / FREE_SHARE)));
    const lease: Lease = { id: crypto.randomUUID(), grantedAt: now, endsAt: now + LEASE_MS, slots };
    this.#leases.set(lease.id, lease);
    this.#journal?.leased(lease);
    return { leaseId: lease.id, slots, durationMs: LEASE_MS, remaining: decision.remaining - slots, resetMs, retryAfterMs: 0 };
  }

  /**
   * The used slots become admissions at the object's time of the grant plus the isolate's offset:
   * never earlier than the real use, since the isolate started counting before the grant. An
   * unknown lease (settled already, or out of the window entirely) changes nothing.
   */
  #settle(now: number, windowMs: number, { leaseId, usedAfterMs }: Settlement): void {
    const lease = this.#leases.get(leaseId);
    if (!lease) return;
    this.#leases.delete(leaseId);
    this.#journal?.closed(leaseId);
    for (const [index, offset] of usedAfterMs.slice(0, lease.slots).entries()) {
      const at = Math.min(lease.endsAt, lease.grantedAt + Math.max(0, offset));
      this.#log.record({ token: `${leaseId}.${index}`, at }, now, windowMs);
    }
  }

  /** The leases that still count, sorted by when they stop counting; those that no longer count are dropped. */
  #reserved(now: number, windowMs: number): Reservation[] {
    const reserved: Reservation[] = [];
    for (const lease of this.#leases.values()) {
      const until = lease.endsAt + windowMs;
      if (until <= now) {
        this.#leases.delete(lease.id);
        this.#journal?.closed(lease.id);
      } else reserved.push({ until, slots: lease.slots });
    }
    return reserved.sort((a, b) => a.until - b.until);
  }
}
