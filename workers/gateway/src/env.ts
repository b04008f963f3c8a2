import type { InputNaming, Region } from "@crm/contracts";
import type { RateLimiter } from "@crm/rate-limiter";
import type { DrizzleD1Database } from "drizzle-orm/d1";
import type { Actor } from "./pipeline/authenticate";
import type { RequestFacts } from "./request-log";

/** Bindings of the gateway Worker. */
export interface GatewayEnv {
  /** Control plane: organizations, users, memberships, agents, API keys. */
  CONTROL_DB: D1Database;
  /** One service binding per region; the regional Workers have no public route. */
  API_US: Fetcher;
  API_EU: Fetcher;
  /** One sliding-window counter per key (`org:…`, `key:…`, `ip:…`, …): the rate limits of DESIGN.md section 4. */
  RATE_LIMITER: DurableObjectNamespace<RateLimiter>;
  /** Sign the actor context for each region; a region holds only its own, so no context serves another region. */
  GATEWAY_CONTEXT_SECRET_US: string;
  GATEWAY_CONTEXT_SECRET_EU: string;
  /**
   * Protects identity: CSRF tokens of console forms, consent references, and (encrypted at rest) the
   * private halves of the OAuth signing keys. Each use derives its own key from it (identity/identity-secret.ts).
   */
  IDENTITY_SECRET: string;
  /** Verifies the identity service's signed pushes of SSO connections (`POST /api/v1/internal/sso/store`). */
  SSO_STORE_SECRET: string;
  /** Multiplies every rate-limit budget; set only by the benchmark, which measures the pipeline rather than refusals. */
  RATE_LIMIT_FACTOR?: string;
  /** "true" only in the local stack and tests: enables the demo seed route. */
  DEV_TOOLS?: string;
  /**
   * "true" only in the benchmark: a request with `x-bench-rate-limits: off` skips the limiter, to
   * measure the pipeline without it. Refused (every request fails) unless DEV_TOOLS is on.
   */
  RATE_LIMITS_BENCH_SWITCH?: string;
}

export type { Region };

export interface GatewayVariables {
  requestId: string;
  controlDb: DrizzleD1Database;
  actor: Actor;
  requestFacts: RequestFacts;
  /** How the surface that called one of the gateway's own operations names invalid inputs (`own-operations.ts`). */
  inputNaming?: InputNaming;
}

export type GatewayAppEnv = { Bindings: GatewayEnv; Variables: GatewayVariables };

/**
 * Each region's bindings on the gateway: its Worker (service binding) and the secret that signs what
 * the gateway sends it. A region added to `Region` is a compile error here until it is wired.
 */
const regionBindings: { readonly [R in Region]: (env: GatewayEnv) => { service: Fetcher; contextSecret: string } } = {
  us: (env) => ({ service: env.API_US, contextSecret: env.GATEWAY_CONTEXT_SECRET_US }),
  eu: (env) => ({ service: env.API_EU, contextSecret: env.GATEWAY_CONTEXT_SECRET_EU }),
};

/** The Worker of a region, over its service binding. */
export const regionService = (env: GatewayEnv, region: Region): Fetcher => regionBindings[region](env).service;

/** The secret that signs what the gateway sends to a region, and that only this region verifies with. */
export const contextSecret = (env: GatewayEnv, region: Region): string => regionBindings[region](env).contextSecret;

export function assertGatewayEnv(env: GatewayEnv): void {
  const required = [
    "CONTROL_DB",
    "API_US",
    "API_EU",
    "RATE_LIMITER",
    "GATEWAY_CONTEXT_SECRET_US",
    "GATEWAY_CONTEXT_SECRET_EU",
    "IDENTITY_SECRET",
    "SSO_STORE_SECRET",
  ] as const;
  const missing = required.filter((name) => !env[name]);
  if (missing.length > 0) throw new Error(`Gateway misconfigured: missing ${missing.join(", ")}`);
  if (env.RATE_LIMITS_BENCH_SWITCH && env.DEV_TOOLS !== "true")
    throw new Error("Gateway misconfigured: RATE_LIMITS_BENCH_SWITCH is for the local benchmark only");
}
