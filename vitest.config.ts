import { execFileSync } from "node:child_process";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";
import { unstable_getMiniflareWorkerOptions } from "wrangler";
import { regionalConfigPath, writeRegionalConfigs } from "./scripts/lib/databases.mjs";
import { docsAssetsWorker } from "./scripts/lib/docs-assets.mjs";
import { shardDatabases } from "./workers/api/wrangler-template";

/**
 * Tests run in workerd through the Workers vitest plugin: the gateway is the Worker under test
 * (wrangler.toml), and both regional API Workers run beside it from the bundle `pnpm build:regions`
 * writes, with the bindings of the wrangler files made from the one template (every shard's D1, the
 * queues, the bucket), reached over the real service bindings. The test Worker also binds each
 * region's shard databases and bucket (same ids) so tests can check where data lives.
 */
// The gateway imports the OpenAPI template its wrangler build writes; the plugin runs no build command.
execFileSync("node", ["scripts/write-bundled-catalogue.mjs"], { stdio: "inherit" });
writeRegionalConfigs();
const regions = ["us", "eu"] as const;
type Region = (typeof regions)[number];

/** Each region verifies the actor context with its own secret; the gateway holds one per region. */
const contextSecrets = { us: "test-context-secret-us", eu: "test-context-secret-eu" } as const;
/**
 * The Worker under test (the gateway) runs under the plugin's runner name, `vitest-plugin-runner-`
 * and the project's name, not under its configured `crm-gateway`, which the plugin rewrites only in
 * the gateway's own bindings: the regions' binding back to the gateway names the runner.
 */
const gatewayUnderTest = (project: string) => `vitest-plugin-runner-${project}`;

/** What the tests read of a Worker's miniflare options, as wrangler derives them from its config. */
interface RegionalWorkerOptions {
  bindings?: Record<string, unknown>;
  d1Databases?: Record<string, { id: string }>;
  r2Buckets?: Record<string, { id: string }>;
  queueConsumers?: Record<string, object>;
  serviceBindings?: Record<string, unknown>;
}

/** The regional Worker's options from its wrangler file; module rules and root path describe sources, a bundle needs neither. */
const fromConfig = (region: Region) => {
  const {
    modulesRules: _rules,
    rootPath: _root,
    ...options
  } = unstable_getMiniflareWorkerOptions(regionalConfigPath(region)).workerOptions;
  return options as typeof options & RegionalWorkerOptions;
};

const regionWorker = (region: Region, project: string, extraBindings: Record<string, string> = {}) => {
  const options = fromConfig(region);
  return {
    ...options,
    name: `crm-api-${region}`,
    modules: true,
    // Named after the regional Worker's local entry (`workers/api/src/local.ts`).
    scriptPath: ".wrangler/build/api/local.js",
    serviceBindings: { ...options.serviceBindings, GATEWAY: gatewayUnderTest(project) },
    // Batches leave at once, so that fan-out and delivery run within a test.
    queueConsumers: Object.fromEntries(
      Object.entries(options.queueConsumers ?? {}).map(([queue, consumer]) => [queue, { ...consumer, maxBatchTimeout: 0 }]),
    ),
    // Loopback receivers, a schedule of seconds and a 1.5 s answer timeout, so that delivery, retries
    // and a hanging receiver's whole schedule run within a test.
    bindings: {
      ...options.bindings,
      DEV_TOOLS: "true",
      WEBHOOKS_ALLOW_LOOPBACK: "true",
      WEBHOOK_RETRY_SCHEDULE: "1,1,1",
      WEBHOOK_TIMEOUT_MS: "1500",
      GATEWAY_CONTEXT_SECRET: contextSecrets[region],
      CURSOR_SECRET: "test-cursor-secret",
      // The gateway under test, as test/stack.ts calls it: unsubscribe links and forwarded MCP requests go there.
      PUBLIC_ORIGIN: "http://127.0.0.1:8787",
      ...extraBindings,
    },
  };
};

/** The test Worker's view of the regions: `US_DB_1`, `US_DB_2`, `EU_DB_1`, … and `ATTACHMENTS_US`, `ATTACHMENTS_EU`. */
const regionalBindings = () => {
  const d1Databases: Record<string, { id: string }> = {};
  const r2Buckets: Record<string, { id: string }> = {};
  for (const region of regions) {
    const options = fromConfig(region);
    for (const { binding } of shardDatabases(region)) {
      const database = options.d1Databases?.[binding];
      if (database) d1Databases[`${region.toUpperCase()}_${binding}`] = database;
    }
    const bucket = options.r2Buckets?.ATTACHMENTS;
    if (bucket) r2Buckets[`ATTACHMENTS_${region.toUpperCase()}`] = bucket;
  }
  return { d1Databases, r2Buckets };
};

/**
 * A project that runs the whole stack (the gateway under test, both regions) in the Workers runtime.
 * `stack` holds the tests of behaviour, one stack per pool worker shared by the files it runs (see
 * `isolate` below); `limits` the files that count a rate limit's budget, each in a fresh stack with
 * the budgets of DESIGN.md section 4; `faults` the fault-injection suite, which restarts every
 * Durable Object of its stack at once (`abortAllDurableObjects`, what a deploy does): each file in a
 * stack of its own (a pool worker is one Miniflare instance), so that no other file's objects are
 * restarted under it, and beside the other projects' files like any isolated file.
 */
const stackProject = (
  name: string,
  include: string[],
  exclude: string[],
  {
    regionBindings = {},
    gatewayBindings = {},
    ...options
  }: {
    isolate?: boolean;
    testTimeout?: number;
    regionBindings?: Record<string, string>;
    gatewayBindings?: Record<string, string>;
  } = {},
) => ({
  plugins: [
    cloudflareTest(async ({ inject }) => ({
      wrangler: { configPath: "./wrangler.toml" },
      miniflare: {
        bindings: {
          GATEWAY_CONTEXT_SECRET_US: contextSecrets.us,
          GATEWAY_CONTEXT_SECRET_EU: contextSecrets.eu,
          IDENTITY_SECRET: "test-identity-secret",
          SSO_STORE_SECRET: "test-sso-store-secret",
          DEV_TOOLS: "true",
          RECEIVER_URL: inject("receiverUrl"),
          CONTROL_MIGRATIONS: await readD1Migrations("migrations/control"),
          REGIONAL_MIGRATIONS: await readD1Migrations("migrations/regional"),
          ...gatewayBindings,
        },
        ...regionalBindings(),
        // The us region's burst buckets, so tests can drain one, and its subscription lanes.
        durableObjects: {
          WEBHOOK_BURST_US: { className: "WebhookBurst", scriptName: "crm-api-us", useSQLite: true },
          WEBHOOK_ENDPOINTS_US: { className: "WebhookEndpoint", scriptName: "crm-api-us", useSQLite: true },
        },
        // Real send_email bindings that refuse some recipients: the faults a resumed send meets
        // (test/inbox-send-resume.test.ts). The first refuses the second recipient, the other the first.
        email: {
          send_email: [
            { name: "MAIL_REFUSING_SECOND", allowed_destination_addresses: ["first@resume.example", "third@resume.example"] },
            { name: "MAIL_REFUSING_FIRST", allowed_destination_addresses: ["second@resume.example", "third@resume.example"] },
          ],
        },
        // The us queues, for tests of the outbox sweeper and of redelivered deliveries.
        queueProducers: { EVENTS_US: "crm-events-us", DELIVERIES_US: "crm-deliveries-us" },
        workers: [regionWorker("us", name, regionBindings), regionWorker("eu", name, regionBindings), docsAssetsWorker()],
      },
    })),
  ],
  test: {
    name,
    // A guard against hangs, not a performance check: a test that sends a few hundred
    // requests takes seconds on a busy machine, and benchmarks measure speed.
    testTimeout: 30_000,
    include,
    exclude,
    setupFiles: ["test/setup.ts"],
    globalSetup: ["test/node/receiver.ts"],
    // One stack (one workerd, its storage, the seed) per pool worker, shared by the files it runs:
    // a stack per file cost a workerd start, every shard's migrations and the seed each time (the
    // larger part of the suite's time). Files therefore make their own organizations and workspaces
    // (or read the demo seed) and never count what others may have written (docs/testing.md).
    isolate: false,
    ...options,
  },
});

const stackTests = ["test/**/*.test.ts", "workers/*/src/**/*.test.ts", "workers/*/test/**/*.test.ts"];
/** Files that count a rate limit's budget (429s, `RateLimit` headers, lockouts): each in a stack of its own. */
const budgetTests = [
  "test/anonymous-limits.test.ts",
  "test/console.test.ts",
  "test/mcp-auth.test.ts",
  "test/mcp-calls.test.ts",
  "test/oauth-credentials.test.ts",
  "test/oauth-endpoints.test.ts",
  "test/public-integrations.test.ts",
  "test/rate-limits.test.ts",
  "test/sso-store.test.ts",
  "workers/gateway/src/pipeline/run-operation.test.ts",
];

export default defineConfig({
  test: {
    // Two files at a time even on two cores (vitest's default there is one): the tests wait on
    // timers, queues and receivers much of the time, and each worker of `stack` is a stack of its own.
    maxWorkers: 2,
    // The gateway's log line of every request (test/request-log.test.ts reads them) would bury the output.
    onConsoleLog: (log) => !log.startsWith('{"level":"info","message":"request"'),
    projects: [
      "packages/rate-limiter",
      // The files of a shared stack send more than the platform's 2 000 requests a minute together,
      // and many as the demo's alice (180 a minute): budgets raised as the benchmark does, and the
      // files that count a budget are in `limits`, with the real ones.
      stackProject("stack", stackTests, ["test/node/**", "test/faults/**", ...budgetTests], {
        gatewayBindings: { RATE_LIMIT_FACTOR: "1000" },
      }),
      // Their files send hundreds of requests each, beside another file on a busy machine: a longer hang guard.
      stackProject("limits", budgetTests, [], { isolate: true, testTimeout: 60_000 }),
      // The chaos drain measures delivery, not the burst limit (350 a minute per workspace): raised as the benchmark does.
      // No file here waits out a hanging receiver, and their receivers answer up to a second late on
      // purpose: a 10 s answer timeout, so that a loaded machine does not turn a held send into a retry.
      stackProject("faults", ["test/faults/**/*.test.ts"], [], {
        isolate: true,
        regionBindings: { WEBHOOK_BURST_FACTOR: "100", WEBHOOK_TIMEOUT_MS: "10000" },
      }),
      {
        // Pages in a real headless Chromium, against the stack on miniflare's Node API.
        test: {
          name: "pages",
          include: ["test/node/**/*.test.ts"],
          environment: "node",
          globalSetup: ["test/node/build-workers.ts"],
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
