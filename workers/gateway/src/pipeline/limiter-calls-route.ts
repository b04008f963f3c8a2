import { leaseCalls } from "@crm/rate-limiter";
import { Hono } from "hono";
import type { GatewayAppEnv } from "../env";
import { keyCacheCounts } from "./api-key-credential";

/**
 * `GET /__dev/rate-limiter-calls`: the Durable Object calls this isolate's rate limiting has made
 * so far, which the benchmark divides by the requests it sent, and the API-key cache's hits and
 * misses. Locally one isolate serves every request, so the figures are the whole gateway's.
 */
export const limiterCallsRoutes = new Hono<GatewayAppEnv>().get("/rate-limiter-calls", (c) => {
  return c.json({ calls: leaseCalls(), keyCache: { ...keyCacheCounts } });
});
