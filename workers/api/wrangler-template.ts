// The regional API Worker's wrangler configuration, written once: crm-api-us and crm-api-eu are this
// template with the region's name, its shard databases, queues and bucket. Nothing reads a wrangler
// file of the regional Worker that was not made here (scripts/lib/regional-configs.mjs writes the local
// ones; deploy writes the production ones with the real database ids). Plain TypeScript without
// extensionless imports, so that Node runs it as it is (scripts) and vitest and tsc read it too.
import { type Region, regions } from "../../packages/contracts/src/actor-context.ts";
import { shardBinding, shardDatabaseName, shardsOf } from "../../packages/contracts/src/shards.ts";

/**
 * Variables that only local development, tests and benchmarks set, in any Worker: the seed routes,
 * loopback webhook receivers, raised or switched-off limits, a schedule of seconds and a short answer timeout. A production
 * build that sets one fails (`assertNoDevSwitches` serves the gateway's configuration too).
 */
export const devSwitches = [
  "DEV_TOOLS",
  "WEBHOOKS_ALLOW_LOOPBACK",
  "WEBHOOK_BURST_FACTOR",
  "WEBHOOK_RETRY_SCHEDULE",
  "WEBHOOK_TIMEOUT_MS",
  "RATE_LIMIT_FACTOR",
  "RATE_LIMITS_BENCH_SWITCH",
] as const;

/** Throws, naming them, when `vars` set a development switch: a production build must never carry one. */
export function assertNoDevSwitches(vars: Record<string, unknown>, what: string): void {
  const set = devSwitches.filter((name) => vars[name] !== undefined);
  if (set.length > 0) {
    throw new Error(
      `${what}: ${set.join(", ")} ${set.length === 1 ? "is a development switch" : "are development switches"}, never set in production`,
    );
  }
}

export interface RegionalConfigOptions {
  /** `local`: placeholder database ids (dev, tests, benchmarks); `production`: the real ones, and no dev switch. */
  environment: "local" | "production";
  /** Production only: each shard database's id by name (`wrangler d1 list`). */
  databaseIds?: Record<string, string>;
  /** Variables beyond the template's, e.g. the gateway's public origin. */
  vars?: Record<string, string>;
}

/** The D1 databases of a region, one per shard, with the binding the Worker reaches each by. */
/** Where each region's R2 bucket must live: EU data in the EU jurisdiction (a new region must say where its data goes). */
const bucketJurisdiction: { readonly [R in Region]: { jurisdiction?: "eu" | "fedramp" } } = {
  us: {},
  eu: { jurisdiction: "eu" },
};

export const shardDatabases = (region: Region) =>
  shardsOf(region).map((shard) => ({ shard, binding: shardBinding(shard), databaseName: shardDatabaseName(region, shard) }));

/** The regional Worker's wrangler configuration for `region`; paths are relative to `workers/api`, where it is written. */
export function regionalWorkerConfig(region: Region, options: RegionalConfigOptions) {
  const vars = {
    REGION: region,
    // The gateway's public origin: the unsubscribe links of sent mail point there (deploy sets yours).
    PUBLIC_ORIGIN: "https://crm.example.com",
    ...options.vars,
  };
  if (options.environment === "production") assertNoDevSwitches(vars, `crm-api-${region}`);
  const databaseId = (databaseName: string) => {
    if (options.environment === "local") return databaseName;
    const id = options.databaseIds?.[databaseName];
    if (!id) throw new Error(`crm-api-${region}: no database id for ${databaseName} (create it with wrangler d1 create)`);
    return id;
  };
  const queue = (name: string) => `crm-${name}-${region}`;
  return {
    name: `crm-api-${region}`,
    // Production bundles the entry without the development routes (the seed); local builds add them.
    main: options.environment === "production" ? "src/index.ts" : "src/local.ts",
    // No workers.dev hostname. The gateway reaches the API over a service binding; a public hostname, if
    // attached (docs/deploy.md), serves only /mcp and the OAuth discovery paths, which go to the gateway.
    workers_dev: false,
    compatibility_date: "2026-11-01",
    placement: { mode: "smart" },
    // Workers Logs: the regions' error lines (packages/contracts/src/error-log.ts), beside the gateway's request lines.
    observability: { enabled: true },
    vars,
    // One database per shard; an organization's rows live in exactly one (DESIGN.md section 1, docs/architecture.md).
    d1_databases: shardDatabases(region).map(({ binding, databaseName }) => ({
      binding,
      database_name: databaseName,
      database_id: databaseId(databaseName),
      migrations_dir: "../../migrations/regional",
    })),
    // Outbound mail of the shared inbox (Cloudflare Email Service; the sending domain must be onboarded, docs/deploy.md).
    send_email: [{ name: "SEND_EMAIL" }],
    // Attachments of inbound mail and the raw MIME of sent mail, in the organization's region.
    r2_buckets: [{ binding: "ATTACHMENTS", bucket_name: `crm-attachments-${region}`, ...bucketJurisdiction[region] }],
    // Every minute, in every shard: outbox events missed by their request (a crash) go out; expired idempotency records go.
    triggers: { crons: ["* * * * *"] },
    // Events leave the outbox through one queue per region (each message names its shard) and are fanned
    // out into one delivery message per subscription; the deliveries consumer hands each to its
    // subscription's lane (WEBHOOK_ENDPOINTS), which sends it (docs/webhooks.md). No batch timeout: a
    // consumer that is idle starts at once, and batches fill while it is busy, so latency stays low
    // without giving up batching under load.
    queues: {
      producers: [
        { binding: "EVENTS", queue: queue("events") },
        { binding: "DELIVERIES", queue: queue("deliveries") },
        { binding: "DELIVERIES_DEAD", queue: queue("deliveries-dead") },
      ],
      consumers: [
        { queue: queue("events"), max_batch_size: 100, max_batch_timeout: 0 },
        { queue: queue("deliveries"), max_batch_size: 100, max_batch_timeout: 0 },
      ],
    },
    // The gateway, which answers this region's public MCP and OAuth discovery paths. The gateway binds this
    // Worker too: on a first deployment one of them must exist before the other (docs/deploy.md).
    services: [{ binding: "GATEWAY", service: "crm-gateway" }],
    durable_objects: {
      bindings: [
        // The burst limit of webhook deliveries: one token bucket per workspace.
        { name: "WEBHOOK_BURST", class_name: "WebhookBurst" },
        // One lane per webhook subscription: its pending deliveries, in-flight cap and circuit breaker.
        { name: "WEBHOOK_ENDPOINTS", class_name: "WebhookEndpoint" },
      ],
    },
    migrations: [
      { tag: "v1", new_sqlite_classes: ["WebhookBurst"] },
      { tag: "v2", new_sqlite_classes: ["WebhookEndpoint"] },
    ],
    // Secrets (wrangler secret put): GATEWAY_CONTEXT_SECRET (this region's own; the gateway holds it as
    // GATEWAY_CONTEXT_SECRET_<REGION>), CURSOR_SECRET.
  };
}

export { regions };
