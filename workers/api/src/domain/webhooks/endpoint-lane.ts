/*
 * Invariant: every delivery this lane accepted stays in its storage until an attempt row concludes it
 * (delivered, failed) in the region's D1, and while any is stored the alarm stands no later than its
 * `run_at`, or, once one is due, no later than `heartbeatMs` from now. So wherever the object stops (a
 * deploy, a crash, an eviction), the alarm wakes a new instance, which holds nothing in memory: what
 * was out or being written is due again and goes again under the same `webhook-id`, and a probe the
 * breaker stored as out is lost (a restart ends it, and one out longer than the answer timeout and a
 * margin counts as lost too), so another probe goes. A delivery is never held without an alarm. A
 * delivery asked for again (a replay, a redelivery) while its last send is out or being written is
 * marked `again` and stays stored when that send concludes, due at once with the next attempt number.
 */
import { DurableObject } from "cloudflare:workers";
import { logUnexpectedError } from "@crm/contracts";
import { insertRowsAsJson, newId, regional } from "@crm/db";
import { eq } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { runBatch } from "../../batch";
import type { Database, RegionEnv } from "../../env";
import { shardDatabase } from "../../shards";
import { type AttemptResult, attemptDelivery, defaultTimeoutMs, isEndpointFailure } from "./attempt";
import { afterAttempt, type BreakerState, breakerMode, closedBreaker } from "./breaker";
import type { DeliveryMessage } from "./messages";
import { jittered, scheduleOf } from "./schedule";

const { webhooks, webhookAttempts } = regional;
type WebhookRow = typeof webhooks.$inferSelect;

/** Deliveries of one subscription out at once: a slow or hanging endpoint holds at most this many connections. */
export const laneConcurrency = 8;
/**
 * While any delivery is due (out, being written, or waiting for a connection or the probe), the alarm
 * stands at most this far ahead: after a restart the new instance takes them up within this time. A
 * live instance woken by it only skips what it has out (an alarm write per heartbeat while busy, not one a delivery).
 */
const heartbeatMs = 100;
/**
 * A delivery whose outcome could not be written goes again after this long; a probe not concluded
 * this long after its answer timeout is lost.
 */
const resendMarginMs = 10_000;
/** The subscription is read again after this long: a deletion or deactivation stops deliveries within a second. */
const subscriptionFreshMs = 1_000;
/** Due deliveries read from storage at a time while the breaker is closed. */
const readAhead = 100;
/** At most this many attempt rows per D1 write (one statement, however many rows). */
const maxAttemptsPerWrite = 500;
/**
 * A write waits this long for more attempt rows to join it: a busy lane then writes tens of rows per
 * D1 call instead of one or two, and D1 calls, not rows, are what a write costs.
 */
const gatherMs = 50;

/**
 * A delivery the lane keeps until it ends, due at `run_at`; `held` while the breaker is open; `again`
 * when it was asked for again while a send of it was out, so that it goes once more after that send.
 */
interface LaneRow extends Record<string, SqlStorageValue> {
  delivery_id: string;
  message: string;
  run_at: number;
  held: number;
  again: number;
}

/** The endpoint's health as `GET /webhooks/{id}` shows it (before the subscription's own `disabled`). */
export interface EndpointHealth {
  status: "healthy" | "failing";
  consecutiveFailures: number;
  lastFailureAt: number | null;
  lastFailure: string | null;
  nextAttemptAt: number | null;
}

/**
 * Attempt rows (and any other statements) waiting for the next D1 batch, and who waits for them;
 * `ended` is the delivery they conclude, which the lane forgets once they are written.
 */
interface PendingWrite {
  attempts: AttemptRow[];
  statements: BatchItem<"sqlite">[];
  ended: LaneRow | undefined;
  resolve: () => void;
  reject: (error: unknown) => void;
}

type AttemptRow = typeof webhookAttempts.$inferInsert;
type Attempt = Omit<AttemptRow, "id" | "createdAt">;

/**
 * The lane of one subscription (docs/webhooks.md): the deliveries Queue hands it its deliveries and
 * it keeps them in its own storage until each ends, sends at most `laneConcurrency` at once, retries
 * on the schedule, and runs the subscription's circuit breaker. A hanging endpoint therefore ties up
 * only its own lane: the Queue consumer never waits on a receiver. Attempt rows go to the region's
 * D1, gathered into one batch while the previous one is written.
 */
export class WebhookEndpoint extends DurableObject<RegionEnv> {
  /** The D1 shard of this lane's subscription, known from the first delivery it handles (each names its shard). */
  #shardDb: Database | null = null;
  readonly #timeoutMs: number;
  readonly #schedule: number[];
  #breaker: BreakerState;
  #inFlight = 0;
  /**
   * Deliveries taken from storage and not yet concluded (out, or their outcome being written). They
   * stay due in storage, so claiming writes nothing; claims skip them instead.
   */
  #outstanding = new Set<string>();
  /** Due deliveries read ahead (outstanding, not yet sent): one storage read serves many sends. */
  #ready: LaneRow[] = [];
  #pumpScheduled = false;
  /** The alarm this object set last (null once it fired): saves a storage write per delivery. */
  #alarmAt: number | null = null;
  #subscription: { row: WebhookRow | undefined; at: number } | null = null;
  #loading: Promise<WebhookRow | undefined> | null = null;
  #writes: PendingWrite[] = [];
  #writing = false;

  constructor(ctx: DurableObjectState, env: RegionEnv) {
    super(ctx, env);
    this.#timeoutMs = Number(env.WEBHOOK_TIMEOUT_MS ?? defaultTimeoutMs);
    this.#schedule = scheduleOf(env);
    ctx.storage.sql.exec(
      "create table if not exists deliveries (delivery_id text primary key, message text not null, run_at integer not null, held integer not null default 0)",
    );
    ctx.storage.sql.exec("create index if not exists deliveries_due on deliveries (run_at)");
    // Lanes created before `again` existed gain the column on their next start.
    const columns = ctx.storage.sql.exec<{ name: string }>("select name from pragma_table_info('deliveries')").toArray();
    if (!columns.some((column) => column.name === "again"))
      ctx.storage.sql.exec("alter table deliveries add column again integer not null default 0");
    // A new instance: whatever the last one had out, the probe included, ended with it.
    const stored = ctx.storage.kv.get<BreakerState>("breaker");
    this.#breaker = stored ? { ...stored, probeSentAt: null } : closedBreaker(this.#firstProbeWaitMs);
    // Deliveries stored without an alarm (none should be) are woken all the same.
    void ctx.blockConcurrencyWhile(async () => {
      if ((await ctx.storage.getAlarm()) === null) await this.#wakeAt(Date.now());
    });
  }

  /** A probe out this long is lost: its answer would have timed out, and the margin has passed. */
  get #probeLostAfterMs(): number {
    return this.#timeoutMs + resendMarginMs;
  }

  get #db(): Database {
    if (!this.#shardDb) throw new Error("A webhook lane wrote before it read a delivery naming its shard");
    return this.#shardDb;
  }

  /** A held delivery; the first one read tells the lane which shard its subscription lives in. */
  #messageOf(row: LaneRow): DeliveryMessage {
    const message = JSON.parse(row.message) as DeliveryMessage;
    this.#shardDb ??= shardDatabase(this.env, message.shard).db;
    return message;
  }

  /** The breaker's first probe waits as long as the schedule's first retry (5 s; a second in tests). */
  get #firstProbeWaitMs(): number {
    return (this.#schedule[0] ?? 5) * 1000;
  }

  /**
   * Takes deliveries over and starts what it can. A repeat of one it already holds is ignored (a Queue
   * message delivered twice), unless it is asked for again (`again`: a replay, a redelivery) while a
   * send of it is out or being written: that send may have reached the receiver already, so the
   * delivery is marked to go once more when it concludes.
   */
  accept(messages: DeliveryMessage[]): void {
    const repeats = messages.filter((message) => message.again && this.#outstanding.has(message.deliveryId));
    if (repeats.length > 0)
      this.ctx.storage.sql.exec(
        "update deliveries set again = 1 where delivery_id in (select value from json_each(?))",
        JSON.stringify(repeats.map((message) => message.deliveryId)),
      );
    // One statement for the whole batch: the messages as one JSON array, each row's message its element's text.
    this.ctx.storage.sql.exec(
      "insert or ignore into deliveries (delivery_id, message, run_at) select value ->> 'deliveryId', value, value ->> 'notBefore' from json_each(?)",
      JSON.stringify(messages),
    );
    this.#pump();
  }

  health(): EndpointHealth {
    const breaker = this.#breaker;
    const next = this.ctx.storage.sql.exec<{ at: number | null }>("select min(run_at) as at from deliveries").one().at;
    return {
      status: breaker.consecutiveFailures > 0 || breaker.openUntil !== null ? "failing" : "healthy",
      consecutiveFailures: breaker.consecutiveFailures,
      lastFailureAt: breaker.lastFailureAt,
      lastFailure: breaker.lastFailure,
      nextAttemptAt: next === null ? null : Math.max(next, breaker.openUntil ?? 0, Date.now()),
    };
  }

  override alarm(): void {
    this.#alarmAt = null;
    this.#pump();
  }

  /**
   * A pump once the answers that arrived together are all in: the slots they free are filled by one
   * claim, not one claim (and one storage commit) each.
   */
  #pumpSoon(): void {
    if (this.#pumpScheduled) return;
    this.#pumpScheduled = true;
    setTimeout(() => {
      this.#pumpScheduled = false;
      this.#pump({ scheduleChanged: false });
    }, 0);
  }

  /**
   * Starts what the breaker allows now, and wakes the lane when the next delivery is due. After an
   * attempt ends (`scheduleChanged: false`) no future delivery appeared (a retry sets its own alarm),
   * so the alarm is looked at only if none stands within the heartbeat.
   */
  #pump({ scheduleChanged } = { scheduleChanged: true }): void {
    const now = Date.now();
    const mode = breakerMode(this.#breaker, now, this.#probeLostAfterMs);
    // Read ahead only while the breaker is closed: otherwise what is due is held back or waits for the probe.
    if (mode !== "closed") this.#dropReady();
    if (mode === "closed") {
      for (const row of this.#next(now, laneConcurrency - this.#inFlight)) void this.#attempt(row, false);
    } else if (mode === "probe") {
      const [row] = this.#claim(now, 1);
      if (row) {
        this.#setBreaker({ ...this.#breaker, probeSentAt: now });
        void this.#attempt(row, true);
      }
    } else if (mode === "open") {
      // Due while the breaker is open: not sent, counted as the attempt, and back after the probe.
      for (const row of this.#claim(now, 100)) void this.#holdBack(row);
    }
    const heartbeatCovered = this.#alarmAt !== null && this.#alarmAt > now && this.#alarmAt <= now + heartbeatMs;
    if (scheduleChanged || !heartbeatCovered) void this.#wakeAt(now);
  }

  /**
   * Takes up to `count` due deliveries that are not already outstanding. A read, not a write: a
   * storage write per delivery (a commit each) was the lane's largest cost.
   */
  #claim(now: number, count: number): LaneRow[] {
    if (count <= 0) return [];
    const rows = this.ctx.storage.sql
      .exec<LaneRow>(
        "select * from deliveries where run_at <= ? and delivery_id not in (select value from json_each(?)) order by run_at limit ?",
        now,
        JSON.stringify([...this.#outstanding]),
        count,
      )
      .toArray();
    for (const row of rows) this.#outstanding.add(row.delivery_id);
    return rows;
  }

  /** The next `count` due deliveries to send, from those read ahead, reading up to `readAhead` more when short. */
  #next(now: number, count: number): LaneRow[] {
    if (count <= 0) return [];
    if (this.#ready.length < count) this.#ready.push(...this.#claim(now, readAhead));
    return this.#ready.splice(0, count);
  }

  /** Forgets what was read ahead: it is still due in storage. */
  #dropReady(): void {
    for (const row of this.#ready) this.#settle(row);
    this.#ready = [];
  }

  /** The delivery is concluded (or given up on for now): claims may take it again if it is still due. */
  #settle(row: LaneRow): void {
    this.#outstanding.delete(row.delivery_id);
  }

  /** Its outcome could not be written: it goes again after a while, not in a tight loop. */
  #resendLater(row: LaneRow): void {
    this.ctx.storage.sql.exec(
      "update deliveries set run_at = ? where delivery_id = ?",
      Date.now() + resendMarginMs,
      row.delivery_id,
    );
    void this.#wakeAt(Date.now());
  }

  /**
   * The alarm stands at the next delivery's `run_at`, or, when one is already due (out, being
   * written, or waiting for a connection or the probe), a heartbeat from now: never a stored delivery
   * without an alarm, and a due one waits at most a heartbeat after a restart.
   */
  async #wakeAt(now: number): Promise<void> {
    const { next } = this.ctx.storage.sql.exec<{ next: number | null }>("select min(run_at) as next from deliveries").one();
    if (next === null) return;
    const at = next <= now ? now + heartbeatMs : next;
    // An earlier alarm still to come is kept: firing early only runs the pump, which sets the next one.
    if (this.#alarmAt !== null && this.#alarmAt > now && this.#alarmAt <= at) return;
    this.#alarmAt = at;
    await this.ctx.storage.setAlarm(at);
  }

  #setBreaker(state: BreakerState): void {
    const before = this.#breaker;
    // Most attempts leave a healthy breaker as it was: no write, which would hold the next request
    // back behind the output gate until it is stored.
    if (JSON.stringify(before) === JSON.stringify(state)) return;
    const wasOpen = before.openUntil !== null;
    this.#breaker = state;
    this.ctx.storage.kv.put("breaker", state);
    // Closed again: what waited for the endpoint goes now, not at its next retry.
    if (wasOpen && state.openUntil === null)
      this.ctx.storage.sql.exec("update deliveries set run_at = ?, held = 0 where held = 1", Date.now());
  }

  /**
   * One delivery out: the connection slot is given back as soon as the receiver answered (or did
   * not), and the outcome is written after, so slots are never held waiting for D1.
   */
  async #attempt(row: LaneRow, probe: boolean): Promise<void> {
    this.#inFlight++;
    let sending = true;
    const release = () => {
      if (!sending) return;
      sending = false;
      this.#inFlight--;
      this.#pumpSoon();
    };
    try {
      const message = this.#messageOf(row);
      const webhook = await this.#subscriptionRow(message.webhookId);
      if (!webhook?.isActive) {
        if (probe) this.#setBreaker({ ...this.#breaker, probeSentAt: null });
        this.#forget(row); // deleted or deactivated since: nothing to deliver
        return;
      }
      const now = Date.now();
      const result = await attemptDelivery(webhook, message, this.#timeoutMs, this.env.WEBHOOKS_ALLOW_LOOPBACK === "true", now);
      this.#setBreaker(
        afterAttempt(
          this.#breaker,
          isEndpointFailure(result)
            ? {
                kind: "failed",
                error: result.error ?? `Receiver answered ${result.status}`,
                retryAfterMs: result.retryAfterSeconds === null ? null : result.retryAfterSeconds * 1000,
              }
            : { kind: "answered" },
          probe,
          Date.now(),
          this.#firstProbeWaitMs,
        ),
      );
      release();
      await this.#conclude(row, message, webhook, result, now);
    } catch (error) {
      // The delivery goes again a little later; a probe that did not conclude lets the next one go.
      this.#resendLater(row);
      if (probe && this.#breaker.probeSentAt !== null) this.#setBreaker({ ...this.#breaker, probeSentAt: null });
      logUnexpectedError(error, { operation: "webhook delivery conclude" });
    } finally {
      release();
      this.#settle(row);
    }
  }

  /** 2xx delivered; 410 disables the subscription; anything else is retried on the schedule. */
  async #conclude(row: LaneRow, message: DeliveryMessage, webhook: WebhookRow, result: AttemptResult, now: number) {
    const attempt = {
      ...this.#attemptOf(message),
      responseStatus: result.status,
      durationMs: result.durationMs,
    };
    if (result.status !== null && result.status >= 200 && result.status < 300) {
      await this.#record([this.#attemptRow({ ...attempt, status: "delivered" }, now)], { ended: row });
      return;
    }
    if (result.status === 410) {
      await this.#record(
        [this.#attemptRow({ ...attempt, status: "failed", error: "The receiver answered 410 Gone: subscription disabled" }, now)],
        {
          statements: [
            this.#db
              .update(webhooks)
              .set({ isActive: false, disabledReason: "gone", updatedAt: now })
              .where(eq(webhooks.id, webhook.id)),
          ],
          ended: row,
        },
      );
      this.#subscription = null;
      return;
    }
    await this.#retryOrFail(row, message, { ...attempt, error: result.error }, result.retryAfterSeconds ?? 0, now);
  }

  /** A due delivery while the breaker is open: recorded as an attempt not sent, so that its schedule still ends. */
  async #holdBack(row: LaneRow): Promise<void> {
    try {
      const message = this.#messageOf(row);
      const webhook = await this.#subscriptionRow(message.webhookId);
      if (!webhook?.isActive) return this.#forget(row);
      const { consecutiveFailures, lastFailure } = this.#breaker;
      const error = `Not sent: the endpoint failed ${consecutiveFailures} times in a row (last: ${lastFailure}); it is tried again when its circuit breaker lets a probe through`;
      await this.#retryOrFail(
        row,
        message,
        { ...this.#attemptOf(message), error, responseStatus: null, durationMs: 0 },
        0,
        Date.now(),
      );
    } catch (error) {
      this.#resendLater(row);
      logUnexpectedError(error, { operation: "webhook delivery conclude" });
    } finally {
      this.#settle(row);
    }
  }

  /** The next try by the schedule, never before the breaker's probe; after the last one, failed and dead-lettered. */
  async #retryOrFail(
    row: LaneRow,
    message: DeliveryMessage,
    attempt: Omit<Attempt, "status">,
    retryAfterSeconds: number,
    now: number,
  ): Promise<void> {
    const waitSeconds = this.#schedule[message.attempt - 1];
    if (waitSeconds === undefined) {
      await this.#record([this.#attemptRow({ ...attempt, status: "failed" }, now)]);
      await this.env.DELIVERIES_DEAD.send(message);
      this.#forget(row);
      return;
    }
    const { openUntil } = this.#breaker;
    const runAt = Math.max(now + Math.max(jittered(waitSeconds), retryAfterSeconds) * 1000, openUntil ?? 0);
    await this.#record([this.#attemptRow({ ...attempt, status: "retrying", nextAttemptAt: runAt }, now)]);
    // The retry is the send a replay asked for meanwhile: `again` is cleared.
    this.ctx.storage.sql.exec(
      "update deliveries set message = ?, run_at = ?, held = ?, again = 0 where delivery_id = ?",
      JSON.stringify({ ...message, attempt: message.attempt + 1 }),
      runAt,
      openUntil === null ? 0 : 1,
      row.delivery_id,
    );
    // The retry may come before the alarm that stands (a heartbeat, or a later delivery's time): the alarm is set for it.
    await this.#wakeAt(Date.now());
  }

  #forget(row: LaneRow): void {
    this.#end([row.delivery_id]);
  }

  /**
   * The deliveries leave storage, but those asked for again meanwhile: they stay, due now, with the
   * next attempt number (a new instance would find them due as well, the alarm is set for them).
   */
  #end(deliveryIds: string[]): void {
    const ids = JSON.stringify(deliveryIds);
    const { sql } = this.ctx.storage;
    sql.exec("delete from deliveries where again = 0 and delivery_id in (select value from json_each(?))", ids);
    const again = sql.exec(
      "update deliveries set again = 0, run_at = ?, message = json_set(message, '$.attempt', json_extract(message, '$.attempt') + 1) where delivery_id in (select value from json_each(?))",
      Date.now(),
      ids,
    );
    if (again.rowsWritten > 0) {
      void this.#wakeAt(Date.now());
      this.#pumpSoon();
    }
  }

  #attemptOf(message: DeliveryMessage) {
    return {
      deliveryId: message.deliveryId,
      webhookId: message.webhookId,
      eventId: message.eventId,
      eventType: message.eventType,
      attempt: message.attempt,
    };
  }

  #attemptRow(attempt: Attempt, now: number): AttemptRow {
    return { id: newId("att", now), createdAt: now, ...attempt };
  }

  /**
   * The subscription as of at most a second ago; one read at a time. A read that returns a row older
   * than one `subscriptionChanged` handed over meanwhile keeps the newer.
   */
  async #subscriptionRow(id: string): Promise<WebhookRow | undefined> {
    if (this.#subscription && Date.now() - this.#subscription.at < subscriptionFreshMs) return this.#subscription.row;
    this.#loading ??= (async () => {
      try {
        const [row] = await this.#db.select().from(webhooks).where(eq(webhooks.id, id));
        const known = this.#subscription?.row;
        if (!known || !row || row.updatedAt >= known.updatedAt) this.#subscription = { row, at: Date.now() };
        return this.#subscription?.row;
      } finally {
        this.#loading = null;
      }
    })();
    return this.#loading;
  }

  /**
   * The subscription as a request just stored it (a rotated secret), handed over before that request
   * answers: every delivery signed after the answer uses it, not a row read up to a second before.
   */
  async subscriptionChanged(row: WebhookRow): Promise<void> {
    const known = this.#subscription?.row;
    if (!known || row.updatedAt >= known.updatedAt) this.#subscription = { row, at: Date.now() };
  }

  /**
   * Writes attempt rows (and statements) in the next D1 batch: one batch is written at a time, and
   * the next gathers what came meanwhile, its attempt rows as a single statement.
   */
  #record(
    attempts: AttemptRow[],
    { statements = [], ended }: { statements?: BatchItem<"sqlite">[]; ended?: LaneRow } = {},
  ): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#writes.push({ attempts, statements, ended, resolve, reject });
      if (!this.#writing) void this.#write();
    });
  }

  async #write(): Promise<void> {
    this.#writing = true;
    while (this.#writes.length > 0) {
      await scheduler.wait(gatherMs);
      const writes: PendingWrite[] = [];
      let attempts = 0;
      while (this.#writes.length > 0 && attempts < maxAttemptsPerWrite) {
        const write = this.#writes.shift() as PendingWrite;
        writes.push(write);
        attempts += write.attempts.length;
      }
      try {
        await runBatch(this.#db, [
          insertRowsAsJson(
            this.#db,
            webhookAttempts,
            writes.flatMap((write) => write.attempts),
          ),
          ...writes.flatMap((write) => write.statements),
        ]);
        // What the batch concluded leaves the lane's storage in one statement (a storage write each was a commit each).
        const ended = writes.flatMap((write) => (write.ended ? [write.ended.delivery_id] : []));
        if (ended.length > 0) this.#end(ended);
        for (const write of writes) write.resolve();
      } catch (error) {
        for (const write of writes) write.reject(error);
      }
    }
    this.#writing = false;
  }
}
