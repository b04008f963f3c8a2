import type { RateLimiter } from "../src/index";

declare global {
  namespace Cloudflare {
    interface Env {
      RATE_LIMITER: DurableObjectNamespace<RateLimiter>;
    }
  }
}
