import { DurableObject } from "cloudflare:workers";

/** The burst limit of webhook deliveries per workspace (DESIGN.md section 4): 350, refilled over a minute. */
export const burstCapacity = 350;
const refillPerMs = burstCapacity / 60_000;

export interface BucketState {
  tokens: number;
  at: number;
}

/** Takes a token if there is one; otherwise says how long until one is back. Pure, for the object and its tests. */
export function takeToken(state: BucketState, now: number): { state: BucketState; allowed: boolean; waitMs: number } {
  const tokens = Math.min(burstCapacity, state.tokens + Math.max(0, now - state.at) * refillPerMs);
  if (tokens >= 1) return { state: { tokens: tokens - 1, at: now }, allowed: true, waitMs: 0 };
  return { state: { tokens, at: now }, allowed: false, waitMs: Math.ceil((1 - tokens) / refillPerMs) };
}

/**
 * One token bucket per workspace. A delivery takes a token; without one it waits for the time
 * the bucket needs to refill one (delayed, never dropped). The state is two numbers, kept in
 * memory and written to storage with each call.
 */
export class WebhookBurst extends DurableObject {
  /** Milliseconds since the epoch; tests replace it through `runInDurableObject`. */
  clock: () => number = Date.now;
  #state: BucketState = { tokens: burstCapacity, at: 0 };

  constructor(ctx: DurableObjectState, env: unknown) {
    super(ctx, env as never);
    ctx.blockConcurrencyWhile(async () => {
      this.#state = (await ctx.storage.get<BucketState>("bucket")) ?? this.#state;
    });
  }

  take(): { allowed: boolean; waitMs: number } {
    const { state, allowed, waitMs } = takeToken(this.#state, this.clock());
    this.#state = state;
    this.ctx.storage.put("bucket", state);
    return { allowed, waitMs };
  }
}
