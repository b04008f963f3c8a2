import { DurableObject } from "cloudflare:workers";
import { type Admission, type AdmissionJournal, SlidingWindowLog, type WindowDecision } from "./sliding-window";

type LogChange = { kind: "admitted" | "refunded"; admission: Admission } | { kind: "expired"; cutoff: number };

/**
 * One counter of the rate limiter: the object's name is the counter key (`org:<id>`, `ip:<addr>`,
 * ...). A Durable Object runs one call at a time and `take` never awaits between checking the log
 * and recording the admission, so parallel callers are admitted exactly up to the limit.
 *
 * The log is answered from memory and copied to the object's SQLite storage, so it survives
 * eviction. The copy is written once a second in one transaction rather than on every call: a
 * write per call made each `take` wait for its commit and cost the gateway half its throughput.
 * An idle object is evicted only long after its pending write has run; what a crash of the
 * object's process can lose is the last second of admissions, never more.
 */
export class RateLimiter extends DurableObject {
  /** Milliseconds since the epoch; tests replace it through `runInDurableObject` to move time. */
  clock: () => number = Date.now;
  /** How long changes to the log wait before one SQLite transaction writes them. */
  persistDelayMs = 1_000;
  readonly #log: SlidingWindowLog;
  #unsaved: LogChange[] = [];
  #saving: ReturnType<typeof setTimeout> | null = null;

  constructor(ctx: DurableObjectState, env: Cloudflare.Env) {
    super(ctx, env);
    const sql = ctx.storage.sql;
    // (at, token) as the key lets expiry delete a prefix of the index instead of scanning.
    sql.exec(
      "CREATE TABLE IF NOT EXISTS admission (at INTEGER NOT NULL, token TEXT NOT NULL, PRIMARY KEY (at, token)) WITHOUT ROWID",
    );
    const stored = sql.exec<{ at: number; token: string }>("SELECT at, token FROM admission ORDER BY at").toArray();
    const journal: AdmissionJournal = {
      admitted: (admission) => this.#changed({ kind: "admitted", admission }),
      expired: (cutoff) => this.#changed({ kind: "expired", cutoff }),
      refunded: (admission) => this.#changed({ kind: "refunded", admission }),
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

  /** Writes the changes not yet in storage, in the order they happened (tests call it to skip the delay). */
  save(): void {
    if (this.#saving) clearTimeout(this.#saving);
    this.#saving = null;
    const changes = this.#unsaved;
    this.#unsaved = [];
    const sql = this.ctx.storage.sql;
    this.ctx.storage.transactionSync(() => {
      for (const change of changes) {
        if (change.kind === "expired") sql.exec("DELETE FROM admission WHERE at <= ?", change.cutoff);
        else if (change.kind === "admitted")
          sql.exec("INSERT INTO admission (at, token) VALUES (?, ?)", change.admission.at, change.admission.token);
        else sql.exec("DELETE FROM admission WHERE at = ? AND token = ?", change.admission.at, change.admission.token);
      }
    });
  }

  #changed(change: LogChange): void {
    this.#unsaved.push(change);
    this.#saving ??= setTimeout(() => this.save(), this.persistDelayMs);
  }
}
