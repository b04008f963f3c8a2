import { configVars, parsedOnce, type Region } from "@crm/contracts";
import { z } from "zod";

const { secret, flag, positiveNumber, binding } = configVars;

/** The gateway's environment (`GatewayEnv`) as it must be: bindings present, secrets set, switches and factors typed. */
const gatewayEnvironment = z
  .object({
    CONTROL_DB: binding<D1Database>(),
    API_US: binding<Fetcher>(),
    API_EU: binding<Fetcher>(),
    RATE_LIMITER: binding<DurableObjectNamespace>(),
    GATEWAY_CONTEXT_SECRET_US: secret,
    GATEWAY_CONTEXT_SECRET_EU: secret,
    IDENTITY_SECRET: secret,
    SSO_STORE_SECRET: secret,
    RATE_LIMIT_FACTOR: positiveNumber,
    DEV_TOOLS: flag,
    RATE_LIMITS_BENCH_SWITCH: flag,
  })
  .refine((env) => !env.RATE_LIMITS_BENCH_SWITCH || env.DEV_TOOLS, {
    message: "RATE_LIMITS_BENCH_SWITCH is for the local benchmark only",
    path: ["RATE_LIMITS_BENCH_SWITCH"],
  })
  .transform((env) => ({
    /** Sign the actor context for each region; a region holds only its own. */
    contextSecrets: { us: env.GATEWAY_CONTEXT_SECRET_US, eu: env.GATEWAY_CONTEXT_SECRET_EU } satisfies { [R in Region]: string },
    identitySecret: env.IDENTITY_SECRET,
    ssoStoreSecret: env.SSO_STORE_SECRET,
    /** Multiplies every rate-limit budget (benchmarks only); undefined in production. */
    rateLimitFactor: env.RATE_LIMIT_FACTOR,
    /** The local stack and tests: loopback hosts only, and the development routes answer. */
    devTools: env.DEV_TOOLS,
    /** The benchmark's `x-bench-rate-limits: off` header is heard (never outside the local stack). */
    rateLimitsBenchSwitch: env.RATE_LIMITS_BENCH_SWITCH,
  }));

export type GatewayConfig = z.output<typeof gatewayEnvironment>;

/** The gateway's configuration, parsed from its environment once per isolate; throws naming what is wrong. */
export const gatewayConfig = parsedOnce(gatewayEnvironment, "Gateway");
