import type { TightestWindow } from "./window-types";

export interface RateLimitHeaders {
  readonly "RateLimit-Policy": string;
  readonly RateLimit: string;
}

/**
 * The IETF RateLimit header fields for the tightest window, in the Structured Fields syntax of
 * draft-ietf-httpapi-ratelimit-headers-11 (May 2026), sections 3 and 4:
 *
 *   RateLimit-Policy: "organization";q=600;w=60   (policy name, quota, window in seconds)
 *   RateLimit: "organization";r=412;t=3           (available quota, seconds it stays that low)
 *
 * The draft makes `t` "the number of seconds within which the client can use no more than the
 * available quota", which for a sliding window is the time until the oldest admission leaves it.
 * Both values are whole seconds (delay-seconds, no sub-second precision), rounded up.
 * https://datatracker.ietf.org/doc/draft-ietf-httpapi-ratelimit-headers/
 */
export function rateLimitHeaders(tightest: TightestWindow): RateLimitHeaders {
  // The draft requires a non-zero window, so a sub-second window is advertised as one second.
  const windowSeconds = Math.max(1, Math.ceil(tightest.windowMs / 1000));
  const policy = `"${tightest.scope}"`;
  return {
    "RateLimit-Policy": `${policy};q=${tightest.limit};w=${windowSeconds}`,
    RateLimit: `${policy};r=${tightest.remaining};t=${tightest.resetSeconds}`,
  };
}
