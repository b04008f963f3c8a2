/**
 * The circuit breaker of one subscription's endpoint (docs/webhooks.md). Closed, deliveries go out
 * (at most `concurrency` at once). After `failureThreshold` failures in a row (timeouts, refused
 * connections, 5xx, 429) it opens: nothing is sent until `openUntil`, then one delivery goes as the
 * probe while the others wait; the probe's success closes it, its failure opens it again for twice
 * as long (up to `maxProbeWaitMs`). Pure state and transitions, for the lane and its tests.
 */
export interface BreakerState {
  consecutiveFailures: number;
  /** While open: when the next probe may go. Null while closed. */
  openUntil: number | null;
  /** How long the breaker stays open after the next failure of a probe. */
  probeWaitMs: number;
  /**
   * When the probe that is out was sent (null when none is): everything else waits for its outcome,
   * but no longer than the lane's `probeLostAfterMs`: a probe that has not concluded by then was lost.
   */
  probeSentAt: number | null;
  lastFailureAt: number | null;
  lastFailure: string | null;
}

export const failureThreshold = 5;
export const maxProbeWaitMs = 5 * 60_000;

export const closedBreaker = (firstProbeWaitMs: number): BreakerState => ({
  consecutiveFailures: 0,
  openUntil: null,
  probeWaitMs: firstProbeWaitMs,
  probeSentAt: null,
  lastFailureAt: null,
  lastFailure: null,
});

/**
 * What the lane may do now: send (closed), send one probe, or hold everything (open, or a probe is
 * out). A probe out for `probeLostAfterMs` (the answer timeout and a margin) is lost, not waited for:
 * waiting on it for ever is how a lane wedged (issue 24), and another probe goes instead.
 */
export function breakerMode(state: BreakerState, now: number, probeLostAfterMs: number): "closed" | "probe" | "open" | "probing" {
  if (state.probeSentAt !== null && now < state.probeSentAt + probeLostAfterMs) return "probing";
  if (state.openUntil === null) return "closed";
  return now >= state.openUntil ? "probe" : "open";
}

/**
 * How an attempt went, as the breaker sees it: `answered` is any response that is not a failure of
 * the endpoint (2xx, but also 4xx: the endpoint is up and speaking), `failed` a timeout, a refused
 * connection, a 5xx or a 429 (with the receiver's Retry-After, if any, in ms).
 */
export type BreakerOutcome = { kind: "answered" } | { kind: "failed"; error: string; retryAfterMs: number | null };

export function afterAttempt(
  state: BreakerState,
  outcome: BreakerOutcome,
  wasProbe: boolean,
  now: number,
  firstProbeWaitMs: number,
): BreakerState {
  if (outcome.kind === "answered")
    return { ...closedBreaker(firstProbeWaitMs), lastFailureAt: state.lastFailureAt, lastFailure: state.lastFailure };
  const failures = state.consecutiveFailures + 1;
  const failed = { ...state, consecutiveFailures: failures, lastFailureAt: now, lastFailure: outcome.error };
  if (wasProbe) {
    const wait = Math.max(Math.min(maxProbeWaitMs, state.probeWaitMs * 2), outcome.retryAfterMs ?? 0);
    return { ...failed, probeSentAt: null, openUntil: now + wait, probeWaitMs: wait };
  }
  if (state.openUntil !== null) return failed; // an attempt that left before the breaker opened
  if (failures < failureThreshold) return failed;
  const wait = Math.max(state.probeWaitMs, outcome.retryAfterMs ?? 0);
  return { ...failed, openUntil: now + wait, probeWaitMs: wait };
}
