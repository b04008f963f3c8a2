/*
 * Invariant: every delivery this lane accepted stays in its storage until its outcome is stored there
 * too, in the same storage transaction: the delivery leaves (delivered, failed) or moves to its next
 * try, and the attempt row joins `unwritten_attempts`, which the lane copies to the region's D1 (and a
 * dead letter to its Queue) and forgets only once they are written. While either table holds anything
 * the alarm stands no later than the next `run_at`, or, once something is due, no later than
 * `heartbeatMs` from now. So wherever the object stops (a deploy, a crash, an eviction), the alarm
 * wakes a new instance, which holds nothing in memory: a restart costs only the requests that were out
 * (due again, they go again under the same `webhook-id`), an outcome already answered is never sent
 * again, and attempt rows cut while being written are written again under their own ids (so once). A
 * probe the breaker stored as out is lost (a restart ends it, and one out longer than the answer
 * timeout and a margin counts as lost too), so another probe goes. Nothing is held without an alarm.
 * A delivery asked for again (a replay, a redelivery) while a send of it is out is marked `again`:
 * when that send's outcome is stored it stays, due at once, with the next attempt number.
 * A replayed delivery (`replay`) is sent only with a spare token of its workspace's burst limit
 * (`WebhookBurst.spare`), after the live deliveries that are due; tokens granted and not yet used
 * die with the instance (the bucket then hands out less, never more). One replay is held at a time.
 * While deliveries are out the lane also sends itself a wake-up through the deliveries Queue each
 * `wakeEveryMs` (`LaneWake`): a restart's new instance is then called within about a second, before
 * the runtime retries a cut alarm; the alarm stays the guarantee, the wake-up only comes sooner.
 */
import { DurableObject } from "cloudflare:workers";
import { logUnexpectedError } from "@crm/contracts";
import { insertRowsAsJson, newId, regional, runBatch } from "@crm/db";
import { and, eq, sql } from "drizzle-orm";
import type { RegionBindings } from "../../bindings";
import { webhookSettings } from "../../config";
import type { Database } from "../../database";
import { shardDatabase } from "../../shards";
import { type AttemptResult, attemptDelivery, defaultTimeoutMs, isEndpointFailure } from "./attempt";
import { afterAttempt, type BreakerState, breakerMode, closedBreaker } from "./breaker";
import type { WebhookBurst } from "./burst";
import type { DeliveryMessage, LaneWake } from "./messages";
import { jsonBytes, sendInBatches } from "./queue-batches";
import { jittered, scheduleOf } from "./schedule";

const { webhooks, webhookAttempts } = regional;
type WebhookRow = typeof webhooks.$inferSelect;

/** Deliveries of one subscription out at once: a slow or hanging endpoint holds at most this many connections. */
export const laneConcurrency = 8;
/**
 * While anything is due (a delivery out or waiting for a connection or the probe, attempt rows to
 * write), the alarm stands at most this far ahead: the alarm is what wakes a new instance after a
 * restart, so this is how long a restart leaves the lane idle. A live instance woken by it only
 * skips what it has out (an alarm write per heartbeat while busy, not one a delivery). A standing
 * alarm is never moved later: the runtime applies such a move after the write is stored, and one
 * cut by a restart left the alarm to fire early, be refused, and come again only 2 s later.
 */
const heartbeatMs = 50;
/**
 * A delivery whose attempt failed unexpectedly (its subscription could not be read) goes again after
 * this long; a probe not concluded this long after its answer timeout is lost.
 */
const resendMarginMs = 10_000;
/** After a refused write of attempt rows, the next waits this long, doubled at each refusal up to `writeRetryMaxMs`. */
const writeRetryMs = 1_000;
const writeRetryMaxMs = 60_000;
/**
 * While deliveries are out, a wake-up goes through the deliveries Queue this often, delayed as long
 * (a Queue delays by whole seconds): the next instance after a restart is called within about this.
 */
const wakeEveryMs = 1_000;
/** The subscription is read again after this long: a deletion or deactivation stops deliveries within a second. */
const subscriptionFreshMs = 1_000;
/**
 * How long a replay's request may take between two pages it hands over before another replay of
 * the subscription may start: one that stops midway holds the next back no longer than this.
 */
const replayHandoverMs = 60_000;
/** Due deliveries read from storage at a time while the breaker is closed. */
const readAhead = 100;
/** At most this many attempt rows per D1 write (one statement, however many rows). */
const maxAttemptsPerWrite = 500;
/**
 * A write waits this long for more attempt rows to join it: a busy lane then writes tens of rows per
 * D1 call instead of one or two, and D1 calls, not rows, are what a write costs.
 */
const gatherMs = 50;

/** The region's bindings and its workspaces' burst buckets, which replayed deliveries ask for spare tokens. */
type LaneBindings = RegionBindings & { WEBHOOK_BURST: DurableObjectNamespace<WebhookBurst> };

/** A delivery the lane keeps until it ends, due at `run_at`; `held` while the breaker is open. */
interface LaneRow extends Record<string, SqlStorageValue> {
  delivery_id: string;
  message: string;
  run_at: number;
  held: number;
  /** Asked for again while a send of it was out: it goes once more after that send. */
  again: number;
  /** The replay that handed it over, until its first send under it: it waits for a spare burst token. */
  replay: string | null;
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
 * An attempt row stored with its delivery's outcome and not yet in D1; `disables` when the receiver
 * answered 410 (the subscription is disabled with it), `dead_letter` the delivery's message when it
 * failed for good.
 */
interface UnwrittenAttempt extends Record<string, SqlStorageValue> {
  id: string;
  attempt: string;
  disables: number;
  dead_letter: string | null;
}

type AttemptRow = typeof webhookAttempts.$inferInsert;
type Attempt = Omit<AttemptRow, "id" | "createdAt">;

/** What becomes of a delivery once an attempt ends: it leaves the lane, or waits in it for its next try. */
type Outcome =
  | { ends: true; disables?: boolean; deadLetter?: DeliveryMessage }
  | { ends: false; message: DeliveryMessage; runAt: number; held: boolean };

/**
 * The lane of one subscription (docs/webhooks.md): the deliveries Queue hands it its deliveries and
 * it keeps them in its own storage until each ends, sends at most `laneConcurrency` at once, retries
 * on the schedule, and runs the subscription's circuit breaker. A hanging endpoint therefore ties up
 * only its own lane: the Queue consumer never waits on a receiver. Attempt rows, stored with each
 * outcome, go to the region's D1 after, gathered into one batch while the previous one is written.
 */
export class WebhookEndpoint extends DurableObject<LaneBindings> {
  /** The D1 shard of this lane's subscription, known from the first delivery it handles (each names its shard). */
  #shardDb: Database | null = null;
  readonly #timeoutMs: number;
  readonly #schedule: number[];
  #breaker: BreakerState;
  #inFlight = 0;
  /**
   * Deliveries taken from storage and not yet concluded (read ahead, or out). They
   * stay due in storage, so claiming writes nothing; claims skip them instead.
   */
  #outstanding = new Set<string>();
  /** Due deliveries read ahead (outstanding, not yet sent): one storage read serves many sends. */
  #ready: LaneRow[] = [];
  #pumpScheduled = false;
  /** The subscription this lane serves, known from the first delivery it reads. */
  #webhookId: string | null = null;
  /** When this instance last sent itself a wake-up (`LaneWake`). */
  #wakeSentAt = 0;
  /** The alarm this object set last (null once it fired): saves a storage write per delivery. */
  #alarmAt: number | null = null;
  #subscription: { row: WebhookRow | undefined; at: number } | null = null;
  #loading: Promise<WebhookRow | undefined> | null = null;
  #writing = false;
  /** Refused writes of attempt rows in a row, and when the next may go. */
  #writeFailures = 0;
  #writeAfter = 0;
  /** Spare burst tokens granted for replayed deliveries and not yet used. */
  #replayTokens = 0;
  /** Before this, the bucket has no spare token for a replay (its answer); one ask at a time. */
  #replayAskAfter = 0;
  #askingForReplayTokens = false;

  constructor(ctx: DurableObjectState, env: LaneBindings) {
    super(ctx, env);
    this.#timeoutMs = webhookSettings(env).timeoutMs ?? defaultTimeoutMs;
    this.#schedule = scheduleOf(env);
    // Created only when missing: a statement that writes, even one that changes nothing, opens a
    // storage commit, and the alarm that woke this instance counts as running until it is stored.
    const tables = ctx.storage.sql
      .exec("select name from sqlite_master where type = 'table' and name in ('deliveries', 'unwritten_attempts')")
      .toArray().length;
    if (tables < 2) {
      ctx.storage.sql.exec(
        "create table if not exists deliveries (delivery_id text primary key, message text not null, run_at integer not null, held integer not null default 0, again integer not null default 0, replay text)",
      );
      ctx.storage.sql.exec("create index if not exists deliveries_due on deliveries (run_at)");
      ctx.storage.sql.exec("create index if not exists deliveries_replayed on deliveries (replay, run_at)");
      ctx.storage.sql.exec(
        "create table if not exists unwritten_attempts (id text primary key, attempt text not null, disables integer not null, dead_letter text)",
      );
    }
    // Lanes whose table predates `again` or `replay` gain the column once (a read on every later start).
    const columns = ctx.storage.sql.exec<{ name: string }>("select name from pragma_table_info('deliveries')").toArray();
    if (!columns.some((column) => column.name === "again"))
      ctx.storage.sql.exec("alter table deliveries add column again integer not null default 0");
    if (!columns.some((column) => column.name === "replay")) {
      ctx.storage.sql.exec("alter table deliveries add column replay text");
      ctx.storage.sql.exec("create index if not exists deliveries_replayed on deliveries (replay, run_at)");
    }
    this.#shardDb = this.#storedShard === undefined ? null : shardDatabase(env, this.#storedShard).db;
    // The subscription as the last instance read it: fresh enough, it spares a restarted lane a D1 read before its first send.
    this.#subscription = ctx.storage.kv.get<{ row: WebhookRow | undefined; at: number }>("subscription") ?? null;
    // A new instance: whatever the last one had out, the probe included, ended with it.
    const stored = ctx.storage.kv.get<BreakerState>("breaker");
    this.#breaker = stored ? { ...stored, probeSentAt: null } : closedBreaker(this.#firstProbeWaitMs);
    // Deliveries stored without an alarm (none should be) are woken all the same; a standing alarm is
    // known, so that this instance never moves it later.
    void ctx.blockConcurrencyWhile(async () => {
      this.#alarmAt = await ctx.storage.getAlarm();
      if (this.#alarmAt === null) await this.#wakeAt(Date.now());
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

  /** The shard of the lane's subscription, stored once: a new instance may have attempt rows to write and no delivery left. */
  get #storedShard(): number | undefined {
    return this.ctx.storage.kv.get<number>("shard");
  }

  /** A held delivery; the first one read tells the lane which shard its subscription lives in. */
  #messageOf(row: LaneRow): DeliveryMessage {
    const message = JSON.parse(row.message) as DeliveryMessage;
    this.#webhookId ??= message.webhookId;
    if (!this.#shardDb) {
      if (this.#storedShard !== message.shard) this.ctx.storage.kv.put("shard", message.shard);
      this.#shardDb = shardDatabase(this.env, message.shard).db;
    }
    return message;
  }

  /** The breaker's first probe waits as long as the schedule's first retry (5 s; a second in tests). */
  get #firstProbeWaitMs(): number {
    return (this.#schedule[0] ?? 5) * 1000;
  }

  /**
   * Takes deliveries over and starts what it can. A repeat of one it holds is ignored, and so is one
   * it concluded whose attempt row is not yet written (a Queue batch redelivered meanwhile): the
   * API shows such a delivery as ended only once that row is in D1. A delivery asked for again (a
   * replay, a redelivery: `again`) always goes once more: after the send of it that is out, if one is.
   */
  accept(messages: DeliveryMessage[]): void {
    const { sql } = this.ctx.storage;
    const asked = messages.filter((message) => message.again);
    const outAgain = asked.filter((message) => this.#outstanding.has(message.deliveryId));
    if (outAgain.length > 0)
      sql.exec(
        "update deliveries set again = 1 where delivery_id in (select value from json_each(?))",
        JSON.stringify(outAgain.map((message) => message.deliveryId)),
      );
    // One statement for the whole batch: the messages as one JSON array, each row's message its element's text.
    sql.exec(
      `insert or ignore into deliveries (delivery_id, message, run_at, replay)
       select value ->> 'deliveryId', value, value ->> 'notBefore', value ->> 'replay' from json_each(?)
       where value ->> 'again' or value ->> 'deliveryId' not in (select attempt ->> 'deliveryId' from unwritten_attempts where attempt ->> 'status' in ('delivered', 'failed'))`,
      JSON.stringify(messages),
    );
    const replay = messages.find((message) => message.replay)?.replay;
    const claim = this.#replayClaim;
    if (replay && claim?.id === replay) this.ctx.storage.kv.put("replay", { id: replay, until: Date.now() + replayHandoverMs });
    this.#pump();
  }

  /** The replay handing deliveries over now, and until when its request may still be at it. */
  get #replayClaim(): { id: string; until: number } | undefined {
    return this.ctx.storage.kv.get<{ id: string; until: number }>("replay");
  }

  /**
   * One replay at a time (DESIGN.md section 14): a new one starts only once the lane holds no
   * delivery of an earlier one waiting for its first send, and no other replay's request may still
   * be handing some over (each page it hands over extends that by `replayHandoverMs`, and its end
   * lifts it). Refused: how many replayed deliveries still wait.
   */
  beginReplay(replayId: string): { waiting: number } | null {
    const now = Date.now();
    const { waiting } = this.ctx.storage.sql
      .exec<{ waiting: number }>("select count(*) as waiting from deliveries where replay is not null")
      .one();
    const claim = this.#replayClaim;
    if (waiting > 0 || (claim && claim.id !== replayId && claim.until > now)) return { waiting };
    this.ctx.storage.kv.put("replay", { id: replayId, until: now + replayHandoverMs });
    return null;
  }

  /** The replay's request handed everything over: the next replay waits only for its deliveries. */
  replayHandedOver(replayId: string): void {
    if (this.#replayClaim?.id === replayId) this.ctx.storage.kv.delete("replay");
  }

  /**
   * The events of the deliveries this lane holds whose attempts D1 does not show yet (accepted and
   * not yet concluded, or concluded and not yet written): with D1's attempt rows, every delivery the
   * fan-out made for the subscription, which is what a replay sends. A read: the lane is unchanged.
   */
  heldEventIds(): string[] {
    return this.ctx.storage.sql
      .exec<{ eventId: string }>(
        `select message ->> 'eventId' as eventId from deliveries
         union select attempt ->> 'eventId' from unwritten_attempts`,
      )
      .toArray()
      .map((row) => row.eventId);
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

  /**
   * Kept short: the runtime counts an alarm as running until the writes made in it are stored, and
   * one cut by a restart meanwhile comes again only after seconds. So it sets the next alarm first,
   * then leaves the work to the instance.
   */
  override alarm(): void {
    this.#alarmAt = null;
    void this.#wakeAt(Date.now());
    setTimeout(() => this.wake(), 0);
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
      const [row] = this.#claim(now, 1, "send");
      if (row) {
        this.#setBreaker({ ...this.#breaker, probeSentAt: now });
        void this.#attempt(row, true);
      }
    } else if (mode === "open") {
      // Due while the breaker is open: not sent, counted as the attempt, and back after the probe.
      for (const row of this.#claim(now, 100, "hold back")) void this.#holdBack(row);
    }
    if (mode !== "open" && this.#replayTokens === 0) void this.#askForReplayTokens(now);
    const heartbeatCovered = this.#alarmAt !== null && this.#alarmAt > now && this.#alarmAt <= now + heartbeatMs;
    if (scheduleChanged || !heartbeatCovered) void this.#wakeAt(now);
    this.#keepAwake(now);
  }

  /** A wake-up through the deliveries Queue while deliveries are out (`LaneWake`); a refused send leaves the alarm to wake the lane. */
  #keepAwake(now: number): void {
    if (this.#outstanding.size === 0 || this.#webhookId === null || now - this.#wakeSentAt < wakeEveryMs) return;
    const shard = this.#storedShard;
    if (shard === undefined) return;
    this.#wakeSentAt = now;
    const wake: LaneWake = { shard, wakeLane: this.#webhookId };
    this.env.DELIVERIES.send(wake, { contentType: "json", delaySeconds: wakeEveryMs / 1000 }).catch((error: unknown) =>
      logUnexpectedError(error, { operation: "webhook lane wake-up" }),
    );
  }

  /** A wake-up's arrival (`LaneWake`): a new instance after a restart takes up what is due; a live one only pumps. */
  wake(): void {
    this.#pump({ scheduleChanged: false });
    void this.#writeAttempts();
  }

  /**
   * Takes up to `count` due deliveries that are not already outstanding: live ones first, then, to
   * `send`, replayed ones as far as spare burst tokens allow (spending them); to `hold back` (nothing
   * leaves) any. A read, not a write: a storage write per delivery (a commit each) was the lane's largest cost.
   */
  #claim(now: number, count: number, purpose: "send" | "hold back"): LaneRow[] {
    if (count <= 0) return [];
    const outstanding = JSON.stringify([...this.#outstanding]);
    const due = (replayed: boolean, limit: number) =>
      limit <= 0
        ? []
        : this.ctx.storage.sql
            .exec<LaneRow>(
              `select * from deliveries where run_at <= ? and replay is ${replayed ? "not null" : "null"}
               and delivery_id not in (select value from json_each(?)) order by run_at limit ?`,
              now,
              outstanding,
              limit,
            )
            .toArray();
    const live = due(false, count);
    const replayed = due(true, purpose === "send" ? Math.min(count - live.length, this.#replayTokens) : count - live.length);
    if (purpose === "send") this.#replayTokens -= replayed.length;
    const rows = [...live, ...replayed];
    for (const row of rows) this.#outstanding.add(row.delivery_id);
    return rows;
  }

  /**
   * Asks the workspace's burst bucket for spare tokens when replayed deliveries are due and none are
   * left; a refusal says when to ask again, and the alarm waits for that (`#wakeAt`). A failed call
   * is asked again a second later.
   */
  async #askForReplayTokens(now: number): Promise<void> {
    if (this.#askingForReplayTokens || now < this.#replayAskAfter) return;
    const [due] = this.ctx.storage.sql
      .exec<{ workspaceId: string }>(
        "select message ->> 'workspaceId' as workspaceId from deliveries where replay is not null and run_at <= ? limit 1",
        now,
      )
      .toArray();
    if (!due) return;
    this.#askingForReplayTokens = true;
    try {
      const bucket = this.env.WEBHOOK_BURST.get(this.env.WEBHOOK_BURST.idFromName(due.workspaceId));
      const { granted, retryInMs } = await bucket.spare(readAhead);
      this.#replayTokens += granted;
      this.#replayAskAfter = granted > 0 ? 0 : Date.now() + retryInMs;
    } catch (error) {
      this.#replayAskAfter = Date.now() + 1_000;
      logUnexpectedError(error, { operation: "webhook replay tokens" });
    } finally {
      this.#askingForReplayTokens = false;
    }
    if (this.#replayTokens > 0) this.#pumpSoon();
    else void this.#wakeAt(Date.now());
  }

  /** The next `count` due deliveries to send, from those read ahead, reading up to `readAhead` more when short. */
  #next(now: number, count: number): LaneRow[] {
    if (count <= 0) return [];
    if (this.#ready.length < count) this.#ready.push(...this.#claim(now, readAhead, "send"));
    return this.#ready.splice(0, count);
  }

  /** Forgets what was read ahead: it is still due in storage, and a replayed one gives its token back. */
  #dropReady(): void {
    for (const row of this.#ready) {
      if (row.replay !== null) this.#replayTokens++;
      this.#settle(row);
    }
    this.#ready = [];
  }

  /** The delivery is concluded (or given up on for now): claims may take it again if it is still due. */
  #settle(row: LaneRow): void {
    this.#outstanding.delete(row.delivery_id);
  }

  /** Its attempt failed unexpectedly: it goes again after a while, not in a tight loop. */
  #resendLater(row: LaneRow): void {
    this.ctx.storage.sql.exec(
      "update deliveries set run_at = ? where delivery_id = ?",
      Date.now() + resendMarginMs,
      row.delivery_id,
    );
    void this.#wakeAt(Date.now());
  }

  /**
   * The alarm stands at the next delivery's `run_at` (a replayed one's no earlier than the bucket
   * has a spare token for it), or the next write of attempt rows, or, when one is already due (out,
   * or waiting for a connection or the probe), a heartbeat from now: never a stored delivery or
   * attempt row without an alarm, and a due one waits at most a heartbeat after a restart.
   */
  async #wakeAt(now: number): Promise<void> {
    const { next } = this.ctx.storage.sql
      .exec<{ next: number | null }>(
        `select min(at) as next from (
           select min(run_at) as at from deliveries where replay is null
           union all select max(min(run_at), ?) from deliveries where replay is not null
           union all select ? where exists (select 1 from unwritten_attempts))`,
        this.#replayAskAfter,
        this.#writeAfter,
      )
      .one();
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
   * not), and the outcome is stored in the lane at once and copied to D1 later, so slots are never
   * held waiting for D1.
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
      const result = await attemptDelivery(webhook, message, this.#timeoutMs, webhookSettings(this.env).allowLoopback, now);
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
      await this.#conclude(row, message, result, now);
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
  async #conclude(row: LaneRow, message: DeliveryMessage, result: AttemptResult, now: number) {
    const attempt = {
      ...this.#attemptOf(message),
      responseStatus: result.status,
      durationMs: result.durationMs,
    };
    if (result.status !== null && result.status >= 200 && result.status < 300) {
      this.#store(row, this.#attemptRow({ ...attempt, status: "delivered" }, now), { ends: true });
      return;
    }
    if (result.status === 410) {
      this.#store(
        row,
        this.#attemptRow({ ...attempt, status: "failed", error: "The receiver answered 410 Gone: subscription disabled" }, now),
        { ends: true, disables: true },
      );
      // Read again before the next send (the lane's write disables it).
      this.#subscription = null;
      this.ctx.storage.kv.delete("subscription");
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
      this.#store(row, this.#attemptRow({ ...attempt, status: "failed" }, now), { ends: true, deadLetter: message });
      return;
    }
    const { openUntil } = this.#breaker;
    const runAt = Math.max(now + Math.max(jittered(waitSeconds), retryAfterSeconds) * 1000, openUntil ?? 0);
    this.#store(row, this.#attemptRow({ ...attempt, status: "retrying", nextAttemptAt: runAt }, now), {
      ends: false,
      message: { ...message, attempt: message.attempt + 1 },
      runAt,
      held: openUntil !== null,
    });
    // The retry may come before the alarm that stands (a heartbeat, or a later delivery's time): the alarm is set for it.
    await this.#wakeAt(Date.now());
  }

  /**
   * The attempt's outcome, stored in one storage transaction (the statements run in one synchronous
   * turn): its row joins those to write, and the delivery leaves or moves to its next try. From here
   * on a restart never sends it again for this attempt.
   */
  #store(row: LaneRow, attempt: AttemptRow, outcome: Outcome): void {
    const sql = this.ctx.storage.sql;
    sql.exec(
      "insert into unwritten_attempts (id, attempt, disables, dead_letter) values (?, ?, ?, ?)",
      attempt.id,
      JSON.stringify(attempt),
      outcome.ends && outcome.disables ? 1 : 0,
      outcome.ends && outcome.deadLetter ? JSON.stringify(outcome.deadLetter) : null,
    );
    if (outcome.ends) this.#forget(row);
    // The retry is the send a replay asked for meanwhile: `again` is cleared. A replayed delivery
    // spent its burst token on its first send, as a live one does: its retries follow the schedule.
    else
      sql.exec(
        "update deliveries set message = ?, run_at = ?, held = ?, again = 0, replay = null where delivery_id = ?",
        JSON.stringify(outcome.message),
        outcome.runAt,
        outcome.held ? 1 : 0,
        row.delivery_id,
      );
    this.#settle(row);
    void this.#writeAttempts();
  }

  /** The delivery leaves storage, unless it was asked for again meanwhile: then it stays, due now, with the next attempt number. */
  #forget(row: LaneRow): void {
    const { sql } = this.ctx.storage;
    sql.exec("delete from deliveries where delivery_id = ? and again = 0", row.delivery_id);
    const again = sql.exec(
      "update deliveries set again = 0, run_at = ?, message = json_set(message, '$.attempt', json_extract(message, '$.attempt') + 1) where delivery_id = ?",
      Date.now(),
      row.delivery_id,
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
        if (!known || !row || row.updatedAt >= known.updatedAt) this.#keepSubscription(row);
        return this.#subscription?.row;
      } finally {
        this.#loading = null;
      }
    })();
    return this.#loading;
  }

  /**
   * The subscription as a request just stored it (a rotated secret, a PATCH of its url or filters),
   * handed over before that request answers: every delivery attempted after the answer uses it, not a
   * row read up to a second before. Of two handed over at once, the later `updatedAt` stays.
   */
  async subscriptionChanged(row: WebhookRow): Promise<void> {
    const known = this.#subscription?.row;
    if (!known || row.updatedAt >= known.updatedAt) this.#keepSubscription(row);
  }

  /** The subscription as read now, kept in memory and in storage (for the next instance, while fresh). */
  #keepSubscription(row: WebhookRow | undefined): void {
    this.#subscription = { row, at: Date.now() };
    this.ctx.storage.kv.put("subscription", this.#subscription);
  }

  /**
   * Copies the stored attempt rows to D1, one batch at a time, each gathering what came meanwhile (its
   * rows as a single statement, `maxAttemptsPerWrite` at most), with the dead letters to their Queue
   * first and the subscription disabled when a receiver answered 410; the rows leave storage once
   * written. A batch cut after D1 took it is written again: its rows keep their ids, so it adds none.
   * A refused write is tried again after a back-off, the alarm standing for it.
   */
  async #writeAttempts(): Promise<void> {
    if (this.#writing || Date.now() < this.#writeAfter) return;
    this.#writing = true;
    try {
      for (;;) {
        await scheduler.wait(gatherMs);
        const rows = this.ctx.storage.sql
          .exec<UnwrittenAttempt>("select * from unwritten_attempts order by rowid limit ?", maxAttemptsPerWrite)
          .toArray();
        if (rows.length === 0) return;
        const attempts = rows.map((row) => JSON.parse(row.attempt) as AttemptRow);
        const deadLetters = rows.flatMap((row) =>
          row.dead_letter === null ? [] : [JSON.parse(row.dead_letter) as DeliveryMessage],
        );
        await sendInBatches(
          this.env.DELIVERIES_DEAD,
          deadLetters.map((body) => ({ body, bytes: jsonBytes(body) })),
        );
        const gone = attempts.filter((_, i) => rows[i]?.disables === 1);
        await runBatch(this.#db, [
          insertRowsAsJson(this.#db, webhookAttempts, attempts).onConflictDoNothing(),
          ...gone.map((attempt) =>
            // Lane-driven state changed in SQL, its version moved forward (written again, a disabled row stays as it is).
            this.#db
              .update(webhooks)
              .set({ isActive: false, disabledReason: "gone", updatedAt: sql`max(${webhooks.updatedAt} + 1, ${Date.now()})` })
              .where(and(eq(webhooks.id, attempt.webhookId), eq(webhooks.isActive, true))),
          ),
        ]);
        this.ctx.storage.sql.exec(
          "delete from unwritten_attempts where id in (select value from json_each(?))",
          JSON.stringify(rows.map((row) => row.id)),
        );
        this.#writeFailures = 0;
      }
    } catch (error) {
      this.#writeFailures++;
      this.#writeAfter = Date.now() + Math.min(writeRetryMaxMs, writeRetryMs * 2 ** (this.#writeFailures - 1));
      const { waiting } = this.ctx.storage.sql
        .exec<{ waiting: number }>("select count(*) as waiting from unwritten_attempts")
        .one();
      logUnexpectedError(error, { operation: "webhook attempts write", count: waiting });
      void this.#wakeAt(Date.now());
    } finally {
      this.#writing = false;
    }
  }
}
