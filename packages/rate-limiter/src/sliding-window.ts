/**
 * An exact sliding-log window: every admission is remembered with its time, and a request is
 * admitted iff fewer than `limit` admissions happened in (now - windowMs, now]. No approximation
 * (no weighted counters), so a client can never exceed `limit` in any window of `windowMs`.
 *
 * Slots reserved outside the log (the leases of `window-ledger.ts`) count too: each decision takes
 * them as `reserved`, slots that stay taken until a given time.
 *
 * The log holds at most `limit` live entries, kept sorted by time so that expiry is a cut at the
 * front. Expired entries are skipped with a head index and compacted lazily, which makes `take`
 * amortised O(1); `record` of a past admission (a settled lease) is a binary search and a splice.
 */

/** One admission in the log; `token` tells apart admissions of the same millisecond (their row key in storage). */
export interface Admission {
  readonly token: string;
  readonly at: number;
}

export interface WindowDecision {
  readonly allowed: boolean;
  /** Admissions still available in the window after this decision. */
  readonly remaining: number;
  /** 0 when allowed; otherwise the ms until enough admissions leave the window for one to fit. */
  readonly retryAfterMs: number;
  /**
   * Ms until the next slot frees, i.e. until the oldest admission still in the window leaves it and
   * `remaining` grows by one. Until then the client can use no more than `remaining`, which is the
   * meaning of the `t` parameter of the IETF `RateLimit` field. Equals `retryAfterMs` when refused.
   */
  readonly resetMs: number;
  /** Names the admission in the log; null when refused (nothing was consumed) or only peeked. */
  readonly token: string | null;
}

/** Slots counted in the window outside the log: `slots` of them until `until` (a lease's end plus the window). */
export interface Reservation {
  readonly until: number;
  readonly slots: number;
}

/**
 * Receives every change to the log as it happens, so that a durable copy (the Durable Object's
 * SQLite table) stays identical to the in-memory one without diffing.
 */
export interface AdmissionJournal {
  admitted(admission: Admission): void;
  /** Every admission with `at <= cutoff` has left the window. */
  expired(cutoff: number): void;
  /** The admission was given back (`SlidingWindowLog.giveBack`). */
  givenBack(token: string): void;
}

/** Below this many dead entries at the front, compacting costs more than it saves. */
const COMPACTION_THRESHOLD = 64;

export class SlidingWindowLog {
  /** Sorted by `at`; entries before `head` have expired and await compaction. */
  #entries: Admission[];
  #head = 0;
  readonly #journal: AdmissionJournal | undefined;

  constructor(admissions: Iterable<Admission> = [], journal?: AdmissionJournal) {
    this.#entries = [...admissions].sort((a, b) => a.at - b.at);
    this.#journal = journal;
  }

  /** Admissions currently remembered (including any not yet pruned by a `take`). */
  get size(): number {
    return this.#entries.length - this.#head;
  }

  /** Admissions in the window (now - windowMs, now]. */
  count(now: number, windowMs: number): number {
    this.#expire(now - windowMs);
    return this.size;
  }

  /** Admits one request now iff the log and `reserved` (sorted by `until`) hold fewer than `limit`. */
  take(now: number, limit: number, windowMs: number, reserved: readonly Reservation[] = []): WindowDecision {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`limit must be a positive integer, got ${limit}`);
    if (!(windowMs > 0)) throw new RangeError(`windowMs must be positive, got ${windowMs}`);
    const decision = this.peek(now, limit, windowMs, reserved);
    if (!decision.allowed) return decision;

    // A clock that steps back (another machine, NTP) would break the sort; recording the admission
    // at the newest time keeps the log sorted and only makes it linger a little longer.
    const count = this.size;
    const newest = count > 0 ? this.#at(count - 1).at : now;
    const admission: Admission = { token: crypto.randomUUID(), at: Math.max(now, newest) };
    this.#entries.push(admission);
    this.#journal?.admitted(admission);
    return {
      allowed: true,
      remaining: decision.remaining - 1,
      retryAfterMs: 0,
      resetMs: this.#nthExpiry(1, windowMs, reserved) - now,
      token: admission.token,
    };
  }

  /** What `take` would decide now, without recording anything (`token` is always null). */
  peek(now: number, limit: number, windowMs: number, reserved: readonly Reservation[] = []): WindowDecision {
    this.#expire(now - windowMs);
    const count = this.size + reserved.reduce((sum, reservation) => sum + reservation.slots, 0);
    if (count >= limit) {
      // More than `limit` only exist if the limit was lowered; then several must leave.
      const retryAfterMs = this.#nthExpiry(count - limit + 1, windowMs, reserved) - now;
      return { allowed: false, remaining: 0, retryAfterMs, resetMs: retryAfterMs, token: null };
    }
    return {
      allowed: true,
      remaining: limit - count,
      retryAfterMs: 0,
      resetMs: count > 0 ? this.#nthExpiry(1, windowMs, reserved) - now : 0,
      token: null,
    };
  }

  /**
   * Records an admission that happened at `at` (a used slot of a settled lease), in time order.
   * One already out of the window (`at <= now - windowMs`) is not kept.
   */
  record(admission: Admission, now: number, windowMs: number): void {
    this.#expire(now - windowMs);
    if (admission.at <= now - windowMs) return;
    let low = this.#head;
    let high = this.#entries.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((this.#entries[middle] as Admission).at <= admission.at) low = middle + 1;
      else high = middle;
    }
    this.#entries.splice(low, 0, admission);
    this.#journal?.admitted(admission);
  }

  /**
   * Removes the admission `token` names, as if it had never been taken: a slot reserved before a
   * secret was checked goes back when the secret was right. An unknown or expired token changes nothing.
   */
  giveBack(token: string): boolean {
    const index = this.#entries.findIndex((entry, position) => position >= this.#head && entry.token === token);
    if (index < 0) return false;
    this.#entries.splice(index, 1);
    this.#journal?.givenBack(token);
    return true;
  }

  /** When the `n`-th slot of the log and `reserved` together leaves the window (n >= 1, within their count). */
  #nthExpiry(n: number, windowMs: number, reserved: readonly Reservation[]): number {
    let seen = 0;
    let offset = 0;
    let index = 0;
    for (;;) {
      const logged = offset < this.size ? this.#at(offset).at + windowMs : Number.POSITIVE_INFINITY;
      const reservation = reserved[index];
      const held = reservation ? reservation.until : Number.POSITIVE_INFINITY;
      if (logged === Number.POSITIVE_INFINITY && held === Number.POSITIVE_INFINITY) throw new RangeError(`no slot ${n}`);
      if (logged <= held) {
        seen += 1;
        offset += 1;
        if (seen >= n) return logged;
      } else {
        seen += (reservation as Reservation).slots;
        index += 1;
        if (seen >= n) return held;
      }
    }
  }

  #at(offset: number): Admission {
    const entry = this.#entries[this.#head + offset];
    if (!entry) throw new RangeError(`no admission at offset ${offset}`);
    return entry;
  }

  #expire(cutoff: number): void {
    const start = this.#head;
    let head = start;
    while (head < this.#entries.length && (this.#entries[head] as Admission).at <= cutoff) head++;
    if (head === start) return;
    this.#head = head;
    this.#journal?.expired(cutoff);
    if (head >= COMPACTION_THRESHOLD && head * 2 >= this.#entries.length) {
      this.#entries = this.#entries.slice(head);
      this.#head = 0;
    }
  }
}
