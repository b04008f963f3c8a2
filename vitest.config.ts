import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";
import { copyDocsAssets } from "./scripts/lib/docs-assets.mjs";

/**
 * Tests run in workerd through the Workers vitest plugin: the gateway is the Worker under test
 * (wrangler.toml), and both regional API Workers run beside it from the bundle `pnpm build:regions`
 * writes, each with its own D1, reached over the real service bindings. The test Worker also binds
 * the two regional databases (same ids) so tests can check where data lives.
 */
// The gateway's [assets] directory (Scalar's build for the docs page) must exist before miniflare reads wrangler.toml.
copyDocsAssets();

const regionDatabase = { us: "crm-us-test", eu: "crm-eu-test" } as const;
/** The attachment bucket of each region, bound to the test Worker too, to read what the regions keep there. */
const regionBucket = { us: "crm-attachments-us-test", eu: "crm-attachments-eu-test" } as const;
/** Each region verifies the actor context with its own secret; the gateway holds one per region. */
const contextSecrets = { us: "test-context-secret-us", eu: "test-context-secret-eu" } as const;
/**
 * The Worker under test (the gateway) runs under the plugin's runner name, `vitest-plugin-runner-`
 * and the project's name, not under its configured `crm-gateway`, which the plugin rewrites only in
 * the gateway's own bindings: the regions' binding back to the gateway names the runner.
 */
const gatewayUnderTest = "vitest-plugin-runner-stack";

const regionWorker = (region: keyof typeof regionDatabase) => ({
  name: `crm-api-${region}`,
  modules: true,
  scriptPath: ".wrangler/build/api/index.js",
  compatibilityDate: "2026-11-01",
  d1Databases: { DB: regionDatabase[region] },
  r2Buckets: { ATTACHMENTS: regionBucket[region] },
  serviceBindings: { GATEWAY: gatewayUnderTest },
  email: { send_email: [{ name: "SEND_EMAIL" }] },
  durableObjects: {
    WEBHOOK_BURST: { className: "WebhookBurst", useSQLite: true },
    WEBHOOK_ENDPOINTS: { className: "WebhookEndpoint", useSQLite: true },
  },
  queueProducers: {
    EVENTS: `crm-events-${region}`,
    DELIVERIES: `crm-deliveries-${region}`,
    DELIVERIES_DEAD: `crm-deliveries-dead-${region}`,
  },
  queueConsumers: {
    [`crm-events-${region}`]: { maxBatchTimeout: 0 },
    [`crm-deliveries-${region}`]: { maxBatchTimeout: 0 },
  },
  // Loopback receivers, a schedule of seconds and a 1.5 s answer timeout, so that delivery, retries
  // and a hanging receiver's whole schedule run within a test.
  bindings: {
    REGION: region,
    DEV_TOOLS: "true",
    WEBHOOKS_ALLOW_LOOPBACK: "true",
    WEBHOOK_RETRY_SCHEDULE: "1,1,1",
    WEBHOOK_TIMEOUT_MS: "1500",
    GATEWAY_CONTEXT_SECRET: contextSecrets[region],
    CURSOR_SECRET: "test-cursor-secret",
    // The gateway under test, as test/stack.ts calls it: unsubscribe links and forwarded MCP requests go there.
    PUBLIC_ORIGIN: "http://127.0.0.1:8787",
  },
});

export default defineConfig({
  test: {
    projects: [
      "packages/rate-limiter",
      {
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
              },
              d1Databases: { US_DB: regionDatabase.us, EU_DB: regionDatabase.eu },
              r2Buckets: { ATTACHMENTS_US: regionBucket.us, ATTACHMENTS_EU: regionBucket.eu },
              // The us region's burst buckets, so tests can drain one, and its subscription lanes.
              durableObjects: {
                WEBHOOK_BURST_US: { className: "WebhookBurst", scriptName: "crm-api-us", useSQLite: true },
                WEBHOOK_ENDPOINTS_US: { className: "WebhookEndpoint", scriptName: "crm-api-us", useSQLite: true },
              },
              // The us queues, for tests of the outbox sweeper and of redelivered deliveries.
              queueProducers: { EVENTS_US: "crm-events-us", DELIVERIES_US: "crm-deliveries-us" },
              workers: [regionWorker("us"), regionWorker("eu")],
            },
          })),
        ],
        test: {
          name: "stack",
          // A guard against hangs, not a performance check: a test that sends a few hundred
          // requests takes seconds on a busy machine, and benchmarks measure speed.
          testTimeout: 30_000,
          include: ["test/**/*.test.ts", "workers/*/src/**/*.test.ts", "workers/*/test/**/*.test.ts"],
          exclude: ["test/node/**"],
          setupFiles: ["test/setup.ts"],
          globalSetup: ["test/node/receiver.ts"],
        },
      },
      {
        // Pages in a real headless Chromium, against the stack on miniflare's Node API.
        test: {
          name: "pages",
          include: ["test/node/**/*.test.ts"],
          environment: "node",
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
