import type { AuthKind, InputNaming, Region } from "@crm/contracts";
import type { RateLimiter } from "@crm/rate-limiter";
import type { DrizzleD1Database } from "drizzle-orm/d1";
import { gatewayConfig } from "./config";
import type { Actor } from "./pipeline/actor";
import type { RequestFacts } from "./request-facts";

/** Bindings of the gateway Worker, as the runtime hands them; the code reads the variables through `gatewayConfig` (config.ts), which checks them. */
export interface GatewayEnv {
  /** Control plane: organizations, users, memberships, agents, API keys. */
  CONTROL_DB: D1Database;
  /** One service binding per region; the regional Workers have no public route. */
  API_US: Fetcher;
  API_EU: Fetcher;
  /** The assets-only Worker of the reference page's static files (Scalar's build), served under `/docs-assets/`. */
  DOCS_ASSETS: Fetcher;
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

/** A bearer or session operation's handler sees the actor; a public or signed one has none to see. */
export type HandlerEnv<A extends AuthKind> = A extends "bearer" | "session"
  ? GatewayAppEnv
  : { Bindings: GatewayAppEnv["Bindings"]; Variables: Omit<GatewayAppEnv["Variables"], "actor"> };

/**
 * Each region's Worker on the gateway (service binding); the secret that signs what the gateway
 * sends it is in the configuration. A region added to `Region` is a compile error here until it is wired.
 */
const regionServices: { readonly [R in Region]: (env: GatewayEnv) => Fetcher } = {
  us: (env) => env.API_US,
  eu: (env) => env.API_EU,
};

/** The Worker of a region, over its service binding. */
export const regionService = (env: GatewayEnv, region: Region): Fetcher => regionServices[region](env);

/** The secret that signs what the gateway sends to a region, and that only this region verifies with. */
export const contextSecret = (env: GatewayEnv, region: Region): string => gatewayConfig(env).contextSecrets[region];
