import { DurableObject } from "cloudflare:workers";
import type { Admission, WindowDecision } from "./sliding-window";
import { type Lease, type LeaseGrant, type LedgerJournal, type Settlement, WindowLedger } from "./window-ledger";

type LedgerChange =
  | { kind: "admitted"; admission: Admission }
  | { kind: "expired"; cutoff: number }
  | { kind: "givenBack"; token: string }
  | { kind: "leased"; lease: Lease }
  | { kind: "closed"; leaseId: string };

/**
 * One counter of the rate limiter: the object's name is the counter key (`org:<id>`, `ip:<addr>`,
 * ...). It hands gateway isolates leases on shares of its window (`window-ledger.ts`), resizing
 * and re-timing the lease an isolate continues in place (its row written again), and admits single
 * requests (`take`) for the windows that are not leased. A Durable Object runs one call at a
 * time and no method awaits between checking and recording, so parallel callers never overdraw.
 *
 * The ledger is answered from memory and copied to the object's SQLite storage, so it survives
 * eviction. The copy is written once a second in one transaction rather than on every call: a
 * write per call made each call wait for its commit and cost the gateway half its throughput.
 * An idle object is evicted only long after its pending write has run; what a crash of the
 * object's process can lose is the last second of changes, never more.
 */
export class RateLimiter extends DurableObject {
  /** Milliseconds since the epoch; tests replace it through `runInDurableObject` to move time. */
  clock: () => number = Date.now;
  /** How long changes wait before one SQLite transaction writes them. */
  persistDelayMs = 1_000;
  readonly #ledger: WindowLedger;
  #unsaved: LedgerChange[] = [];
  #saving: ReturnType<typeof setTimeout> | null = null;

  constructor(ctx: DurableObjectState, env: Cloudflare.Env) {
    super(ctx, env);
    const sql = ctx.storage.sql;
    // (at, token) as the key lets expiry delete a prefix of the index instead of scanning.
    sql.exec(
      "CREATE TABLE IF NOT EXISTS admission (at INTEGER NOT NULL, token TEXT NOT NULL, PRIMARY KEY (at, token)) WITHOUT ROWID",
    );
    sql.exec(
      "CREATE TABLE IF NOT EXISTS lease (id TEXT PRIMARY KEY, granted_at INTEGER NOT NULL, ends_at INTEGER NOT NULL, slots INTEGER NOT NULL)",
    );
    const admissions = sql.exec<{ at: number; token: string }>("SELECT at, token FROM admission ORDER BY at").toArray();
    const leases = sql
      .exec<{ id: string; granted_at: number; ends_at: number; slots: number }>(
        "SELECT id, granted_at, ends_at, slots FROM lease",
      )
      .toArray()
      .map((row) => ({ id: row.id, grantedAt: row.granted_at, endsAt: row.ends_at, slots: row.slots }));
    const journal: LedgerJournal = {
      admitted: (admission) => this.#changed({ kind: "admitted", admission }),
      expired: (cutoff) => this.#changed({ kind: "expired", cutoff }),
      givenBack: (token) => this.#changed({ kind: "givenBack", token }),
      leased: (lease) => this.#changed({ kind: "leased", lease }),
      closed: (leaseId) => this.#changed({ kind: "closed", leaseId }),
    };
    this.#ledger = new WindowLedger(admissions, leases, journal);
  }

  /** Settles what an isolate has finished with, then leases it up to `want` slots or resizes the lease it continues (`WindowLedger.lease`). */
  lease(limit: number, windowMs: number, want: number, settlements: Settlement[], continuing: string | null = null): LeaseGrant {
    return this.#ledger.lease(this.clock(), limit, windowMs, want, settlements, continuing);
  }

  /** Admits one request iff fewer than `limit` were admitted or leased in the last `windowMs`. */
  take(limit: number, windowMs: number): WindowDecision {
    return this.#ledger.take(this.clock(), limit, windowMs);
  }

  /**
   * Gives back a slot `take` admitted, by the token of its decision: login-style windows take their
   * slot before the secret is checked (so parallel attempts cannot pass a full window) and give it
   * back when the secret was right. Whether the slot was still counted.
   */
  giveBack(token: string): boolean {
    return this.#ledger.giveBack(token);
  }

  /** Whether `take` would admit now, consuming nothing: lets a caller refuse early without counting. */
  peek(limit: number, windowMs: number): WindowDecision {
    return this.#ledger.peek(this.clock(), limit, windowMs);
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
        else if (change.kind === "givenBack") sql.exec("DELETE FROM admission WHERE token = ?", change.token);
        else if (change.kind === "admitted")
          sql.exec("INSERT INTO admission (at, token) VALUES (?, ?)", change.admission.at, change.admission.token);
        else if (change.kind === "leased")
          sql.exec(
            // A continued lease is written again under its id.
            "INSERT OR REPLACE INTO lease (id, granted_at, ends_at, slots) VALUES (?, ?, ?, ?)",
            change.lease.id,
            change.lease.grantedAt,
            change.lease.endsAt,
            change.lease.slots,
          );
        else sql.exec("DELETE FROM lease WHERE id = ?", change.leaseId);
      }
    });
  }

  #changed(change: LedgerChange): void {
    this.#unsaved.push(change);
    this.#saving ??= setTimeout(() => this.save(), this.persistDelayMs);
  }
}
