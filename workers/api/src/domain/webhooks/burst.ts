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
 * One token bucket per workspace. A delivery takes a token; without one it is given the slot at
 * which the bucket will have refilled one for it (delayed, never dropped). The state is two numbers,
 * kept in memory and written to storage with each call.
 */
export class WebhookBurst extends DurableObject<{ WEBHOOK_BURST_FACTOR?: string }> {
  /** Milliseconds since the epoch; tests replace it through `runInDurableObject`. */
  clock: () => number = Date.now;
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
    const { state, waitsMs } = reserveTokens(this.#state, this.clock(), count, this.#capacity);
    this.#state = state;
    this.ctx.storage.put("bucket", state);
    return waitsMs;
  }
}
