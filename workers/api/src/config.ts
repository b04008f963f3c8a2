import { configVars, parsedOnce, regions, shardBinding, shardsOf } from "@crm/contracts";
import { z } from "zod";

const { secret, flag, positiveNumber, binding } = configVars;

/**
 * The webhook settings of the environment, all optional (production sets none): parsed apart from
 * the rest, since the Durable Objects and the delivery code that read them see only these.
 */
const webhookEnvironment = z
  .object({
    WEBHOOKS_ALLOW_LOOPBACK: flag,
    WEBHOOK_BURST_FACTOR: positiveNumber,
    WEBHOOK_TIMEOUT_MS: positiveNumber,
    WEBHOOK_RETRY_SCHEDULE: z
      .string()
      .regex(/^\d+(,\d+)*$/, "must be whole seconds, comma-separated")
      .transform((schedule) => schedule.split(",").map(Number))
      .optional(),
  })
  .transform((env) => ({
    /** http://127.0.0.1 and localhost receivers are allowed (local development and tests only). */
    allowLoopback: env.WEBHOOKS_ALLOW_LOOPBACK,
    /** Multiplies the burst limit of deliveries (benchmarks only). */
    burstFactor: env.WEBHOOK_BURST_FACTOR ?? 1,
    /** How long a receiver may take to answer; undefined: the default. */
    timeoutMs: env.WEBHOOK_TIMEOUT_MS,
    /** Seconds between attempts; undefined: DESIGN.md section 10's schedule. */
    retrySchedule: env.WEBHOOK_RETRY_SCHEDULE,
  }));

/** The webhook settings, parsed once per environment object; throws naming what is wrong. */
export const webhookSettings = parsedOnce(webhookEnvironment, "Regional Worker");

/** The regional Worker's environment (`RegionEnv`) as it must be: bindings present (every shard of its region), secrets set. */
const regionEnvironment = z
  .looseObject({
    REGION: z.enum(regions, { error: `must be one of ${regions.join(", ")}` }),
    GATEWAY_CONTEXT_SECRET: secret,
    CURSOR_SECRET: secret,
    PUBLIC_ORIGIN: secret,
    DEV_TOOLS: flag,
    SEND_EMAIL: binding<SendEmail>(),
    ATTACHMENTS: binding<R2Bucket>(),
    GATEWAY: binding<Fetcher>(),
  })
  .superRefine((env, context) => {
    for (const shard of shardsOf(env.REGION)) {
      const name = shardBinding(shard);
      if (typeof env[name] !== "object" || env[name] === null)
        context.addIssue({ code: "custom", path: [name], message: "missing binding" });
    }
  })
  .transform((env) => ({
    region: env.REGION,
    /** Verifies the actor context the gateway signed for this region; signs what this region sends the gateway. */
    gatewayContextSecret: env.GATEWAY_CONTEXT_SECRET,
    cursorSecret: env.CURSOR_SECRET,
    /** The gateway's public origin: unsubscribe links point there, forwarded MCP requests go there. */
    publicOrigin: env.PUBLIC_ORIGIN,
    devTools: env.DEV_TOOLS,
  }));

export type RegionConfig = z.output<typeof regionEnvironment>;

/** The regional Worker's configuration, parsed from its environment once per isolate; throws naming what is wrong. */
export const regionConfig = parsedOnce(regionEnvironment, "Regional Worker");
