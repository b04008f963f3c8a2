import { DurableObject } from "cloudflare:workers";

/** The burst limit of webhook deliveries per workspace (DESIGN.md section 4): 350, refilled over a minute. */
export const burstCapacity = 350;

export interface BucketState {
  tokens: number;
  at: number;
}

/** Takes a token if there is one; otherwise says how long until one is back. Pure, for the object and its tests. */
export function takeToken(
  state: BucketState,
  now: number,
  capacity = burstCapacity,
): { state: BucketState; allowed: boolean; waitMs: number } {
  const refillPerMs = capacity / 60_000;
  const tokens = Math.min(capacity, state.tokens + Math.max(0, now - state.at) * refillPerMs);
  if (tokens >= 1) return { state: { tokens: tokens - 1, at: now }, allowed: true, waitMs: 0 };
  return { state: { tokens, at: now }, allowed: false, waitMs: Math.ceil((1 - tokens) / refillPerMs) };
}

/**
 * One token bucket per workspace. A delivery takes a token; without one it waits for the time
 * the bucket needs to refill one (delayed, never dropped). The state is two numbers, kept in
 * memory and written to storage with each call.
 */
export class WebhookBurst extends DurableObject<{ WEBHOOK_BURST_FACTOR?: string }> {
  /** Milliseconds since the epoch; tests replace it through `runInDurableObject`. */
  clock: () => number = Date.now;
  /** The benchmark raises the limit (`WEBHOOK_BURST_FACTOR`) to measure delivery rather than the limit. */
  readonly #capacity: number;
  #state: BucketState;

  constructor(ctx: DurableObjectState, env: { WEBHOOK_BURST_FACTOR?: string }) {
    super(ctx, env);
    this.#capacity = burstCapacity * Number(env.WEBHOOK_BURST_FACTOR ?? 1);
    this.#state = { tokens: this.#capacity, at: 0 };
    ctx.blockConcurrencyWhile(async () => {
      this.#state = (await ctx.storage.get<BucketState>("bucket")) ?? this.#state;
    });
  }

  take(): { allowed: boolean; waitMs: number } {
    const { state, allowed, waitMs } = takeToken(this.#state, this.clock(), this.#capacity);
    this.#state = state;
    this.ctx.storage.put("bucket", state);
    return { allowed, waitMs };
  }
}
