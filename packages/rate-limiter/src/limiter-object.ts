import { DurableObject } from "cloudflare:workers";
import { type Admission, type AdmissionJournal, SlidingWindowLog, type WindowDecision } from "./sliding-window";

/**
 * One counter of the rate limiter: the object's name is the counter key (`org:<id>`, `ip:<addr>`,
 * ...). A Durable Object runs one call at a time and `take` never awaits between checking the log
 * and recording the admission, so parallel callers are admitted exactly up to the limit.
 *
 * The log lives in memory for reads and is written through to the object's SQLite storage, so it
 * survives eviction. SQL calls are synchronous and their writes are committed before the RPC
 * result leaves the object (output gate), so an admission reported to a caller is never lost.
 */
export class RateLimiter extends DurableObject {
  /** Milliseconds since the epoch; tests replace it through `runInDurableObject` to move time. */
  clock: () => number = Date.now;
  readonly #log: SlidingWindowLog;

  constructor(ctx: DurableObjectState, env: Cloudflare.Env) {
    super(ctx, env);
    const sql = ctx.storage.sql;
    // (at, token) as the key lets expiry delete a prefix of the index instead of scanning.
    sql.exec(
      "CREATE TABLE IF NOT EXISTS admission (at INTEGER NOT NULL, token TEXT NOT NULL, PRIMARY KEY (at, token)) WITHOUT ROWID",
    );
    const stored = sql.exec<{ at: number; token: string }>("SELECT at, token FROM admission ORDER BY at").toArray();
    const journal: AdmissionJournal = {
      admitted: ({ at, token }: Admission) => void sql.exec("INSERT INTO admission (at, token) VALUES (?, ?)", at, token),
      expired: (cutoff: number) => void sql.exec("DELETE FROM admission WHERE at <= ?", cutoff),
      refunded: ({ at, token }: Admission) => void sql.exec("DELETE FROM admission WHERE at = ? AND token = ?", at, token),
    };
    this.#log = new SlidingWindowLog(stored, journal);
  }

  /** Admits one request iff fewer than `limit` were admitted in the last `windowMs`. */
  take(limit: number, windowMs: number): WindowDecision {
    return this.#log.take(this.clock(), limit, windowMs);
  }

  /** Whether `take` would admit now, consuming nothing: lets a caller refuse early without counting. */
  peek(limit: number, windowMs: number): WindowDecision {
    return this.#log.peek(this.clock(), limit, windowMs);
  }

  /** Gives back the admission `token` names; true if it was still in the window. */
  refund(token: string): boolean {
    return this.#log.refund(token);
  }
}
