/**
 * An exact sliding-log window: every admission is remembered with its time, and a request is
 * admitted iff fewer than `limit` admissions happened in (now - windowMs, now]. No approximation
 * (no weighted counters), so a client can never exceed `limit` in any window of `windowMs`.
 *
 * The log holds at most `limit` live entries, kept sorted by time so that expiry is a cut at the
 * front. Expired entries are skipped with a head index and compacted lazily, which makes `take`
 * amortised O(1) apart from the rare refund (O(limit)).
 */

/** One admission in the log; `token` is what `refund` takes back. */
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
  /** Identifies the admission for `refund`; null when refused, since nothing was consumed. */
  readonly token: string | null;
}

/**
 * Receives every change to the log as it happens, so that a durable copy (the Durable Object's
 * SQLite table) stays identical to the in-memory one without diffing.
 */
export interface AdmissionJournal {
  admitted(admission: Admission): void;
  /** Every admission with `at <= cutoff` has left the window. */
  expired(cutoff: number): void;
  refunded(admission: Admission): void;
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

  take(now: number, limit: number, windowMs: number): WindowDecision {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`limit must be a positive integer, got ${limit}`);
    if (!(windowMs > 0)) throw new RangeError(`windowMs must be positive, got ${windowMs}`);
    this.#expire(now - windowMs);

    const count = this.size;
    if (count >= limit) {
      // More than `limit` entries only exist if the limit was lowered; then several must leave.
      const blocking = this.#at(count - limit);
      const retryAfterMs = blocking.at + windowMs - now;
      return { allowed: false, remaining: 0, retryAfterMs, resetMs: retryAfterMs, token: null };
    }

    // A clock that steps back (another machine, NTP) would break the sort; recording the admission
    // at the newest time keeps the log sorted and only makes it linger a little longer.
    const newest = count > 0 ? this.#at(count - 1).at : now;
    const admission: Admission = { token: crypto.randomUUID(), at: Math.max(now, newest) };
    this.#entries.push(admission);
    this.#journal?.admitted(admission);

    const oldest = this.#at(0);
    return {
      allowed: true,
      remaining: limit - count - 1,
      retryAfterMs: 0,
      resetMs: oldest.at + windowMs - now,
      token: admission.token,
    };
  }

  /** What `take` would decide now, without recording anything (`token` is always null). */
  peek(now: number, limit: number, windowMs: number): WindowDecision {
    this.#expire(now - windowMs);
    const count = this.size;
    if (count >= limit) {
      const retryAfterMs = this.#at(count - limit).at + windowMs - now;
      return { allowed: false, remaining: 0, retryAfterMs, resetMs: retryAfterMs, token: null };
    }
    return {
      allowed: true,
      remaining: limit - count,
      retryAfterMs: 0,
      resetMs: count > 0 ? this.#at(0).at + windowMs - now : 0,
      token: null,
    };
  }

  /** Removes exactly the admission `token` names; returns false if it is unknown or already gone. */
  refund(token: string): boolean {
    const index = this.#entries.findIndex((entry, i) => i >= this.#head && entry.token === token);
    if (index < 0) return false;
    const [admission] = this.#entries.splice(index, 1);
    if (admission) this.#journal?.refunded(admission);
    return true;
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
