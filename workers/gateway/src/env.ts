import type { ActorContext } from "@crm/contracts";
import type { RateLimiter } from "@crm/rate-limiter";
import type { DrizzleD1Database } from "drizzle-orm/d1";

/** Bindings of the gateway Worker. */
export interface GatewayEnv {
  /** Control plane: organizations, users, memberships, agents, API keys. */
  CONTROL_DB: D1Database;
  /** One service binding per region; the regional Workers have no public route. */
  API_US: Fetcher;
  API_EU: Fetcher;
  /** One sliding-window counter per key (`org:…`, `key:…`, `ip:…`, …): the rate limits of DESIGN.md section 4. */
  RATE_LIMITER: DurableObjectNamespace<RateLimiter>;
  /** Signs the actor context the regions trust. */
  GATEWAY_CONTEXT_SECRET: string;
  /** Multiplies every rate-limit budget; set only by the benchmark, which measures the pipeline rather than refusals. */
  RATE_LIMIT_FACTOR?: string;
  /** "true" only in the local stack and tests: enables the demo seed route. */
  DEV_TOOLS?: string;
}

export type Region = "us" | "eu";

export interface GatewayVariables {
  requestId: string;
  controlDb: DrizzleD1Database;
  actor: Omit<ActorContext, "requestId" | "operationId" | "issuedAt"> & { region: Region };
}

export type GatewayAppEnv = { Bindings: GatewayEnv; Variables: GatewayVariables };

export function assertGatewayEnv(env: GatewayEnv): void {
  const missing = (["CONTROL_DB", "API_US", "API_EU", "RATE_LIMITER", "GATEWAY_CONTEXT_SECRET"] as const).filter(
    (name) => !env[name],
  );
  if (missing.length > 0) throw new Error(`Gateway misconfigured: missing ${missing.join(", ")}`);
}
