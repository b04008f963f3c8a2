import { DurableObject } from "cloudflare:workers";
import { webhookSettings } from "../../config";

/** The burst limit of webhook deliveries per workspace (DESIGN.md section 4): 350, refilled over a minute. */
export const burstCapacity = 350;

export interface BucketState {
  /** Below zero when slots are promised ahead of the refill: the debt later deliveries queue behind. */
  tokens: number;
  at: number;
}

/**
 * Gives `count` deliveries their slots: a token now while there are any, else the time the refill
 * reaches the next unpromised token. Each held delivery is told once when to come back and keeps
 * that slot, so a burst of thousands waits in the queue in order instead of asking again and again
 * (and crowding other workspaces' deliveries). Pure, for the object and its tests.
 */
export function reserveTokens(
  state: BucketState,
  now: number,
  count: number,
  capacity = burstCapacity,
): { state: BucketState; waitsMs: number[] } {
  const refillPerMs = capacity / 60_000;
  let tokens = Math.min(capacity, state.tokens + Math.max(0, now - state.at) * refillPerMs);
  const waitsMs: number[] = [];
  for (let i = 0; i < count; i++) {
    waitsMs.push(tokens >= 1 ? 0 : Math.ceil((1 - tokens) / refillPerMs));
    tokens -= 1;
  }
  return { state: { tokens, at: now }, waitsMs };
}

/**
 * A replay's share of the bucket (DESIGN.md section 14): replayed deliveries take only what live
 * ones leave, a token only while the bucket holds more than its capacity less `replayShare(capacity)`
 * and never while a live delivery waits for a slot (the bucket is then below zero). So a live burst
 * always finds all but that share at once, and a replay runs at the refill rate less live traffic.
 */
export const replayShare = (capacity: number) => Math.max(1, Math.round(capacity / 16));

/** How long a replay that got nothing waits before asking again: bounded, so a lane never sleeps long on a stale answer. */
const replayWaitMs = { least: 250, most: 2_000 };

/**
 * Up to `count` tokens for replayed deliveries, from the spare above the live reserve (`replayShare`),
 * never a slot ahead: what it grants is used now or not at all. When it grants none, `retryInMs`
 * says when a full share will have refilled (with no live delivery taking it meanwhile). Pure.
 */
export function spareTokens(
  state: BucketState,
  now: number,
  count: number,
  capacity = burstCapacity,
): { state: BucketState; granted: number; retryInMs: number } {
  const refillPerMs = capacity / 60_000;
  const tokens = Math.min(capacity, state.tokens + Math.max(0, now - state.at) * refillPerMs);
  const reserve = capacity - replayShare(capacity);
  const granted = Math.max(0, Math.min(count, Math.floor(tokens - reserve)));
  const missing = reserve + Math.min(count, replayShare(capacity)) - tokens;
  const retryInMs = granted > 0 ? 0 : Math.min(replayWaitMs.most, Math.max(replayWaitMs.least, Math.ceil(missing / refillPerMs)));
  return { state: { tokens: tokens - granted, at: now }, granted, retryInMs };
}

/**
 * One token bucket per workspace. A live delivery takes a token; without one it is given the slot at
 * which the bucket will have refilled one for it (delayed, never dropped); a replayed one only takes
 * a spare token now (`spare`). The state is two numbers, kept in memory and written to storage with
 * each call that changes it. Invariant: a token is handed out once; an instance that stops before
 * its write is stored forgets what it handed out since (the next grants a little more: never less).
 */
export class WebhookBurst extends DurableObject<{ WEBHOOK_BURST_FACTOR?: string }> {
  /** The benchmark raises the limit (`WEBHOOK_BURST_FACTOR`) to measure delivery rather than the limit. */
  readonly #capacity: number;
  #state: BucketState;

  constructor(ctx: DurableObjectState, env: { WEBHOOK_BURST_FACTOR?: string }) {
    super(ctx, env);
    this.#capacity = burstCapacity * webhookSettings(env).burstFactor;
    this.#state = { tokens: this.#capacity, at: 0 };
    ctx.blockConcurrencyWhile(async () => {
      this.#state = (await ctx.storage.get<BucketState>("bucket")) ?? this.#state;
    });
  }

  /** Milliseconds each of `count` deliveries must wait for its slot (0: go now). */
  reserve(count: number): number[] {
    const { state, waitsMs } = reserveTokens(this.#state, Date.now(), count, this.#capacity);
    this.#state = state;
    this.ctx.storage.put("bucket", state);
    return waitsMs;
  }

  /** Tokens for up to `count` replayed deliveries, only from what live ones leave (`spareTokens`). */
  spare(count: number): { granted: number; retryInMs: number } {
    const { state, granted, retryInMs } = spareTokens(this.#state, Date.now(), count, this.#capacity);
    if (granted > 0) {
      this.#state = state;
      this.ctx.storage.put("bucket", state);
    }
    return { granted, retryInMs };
  }
}
