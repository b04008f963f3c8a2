// The whole stack (gateway and both regions) on miniflare's Node API from the built bundles, with
// migrations applied and the demo seed loaded: what the benchmark and the browser checks run against.
import { execFileSync } from "node:child_process";
import { resolve } from "node:path";
import { convertV4MiniflareOptions, Miniflare } from "miniflare";
import { unstable_getMiniflareWorkerOptions } from "wrangler";
import { shardBinding } from "../../packages/contracts/src/shards.ts";
import { gatewayConfigPath, migrateAll, writeRegionalConfigs } from "./databases.mjs";
import { docsAssetsWorker } from "./docs-assets.mjs";

/**
 * Where the Node stack's bundles go (the pages tests, the benchmarks, the MCP checks): a directory of
 * its own, since `wrangler deploy --outdir` empties its directory first, and the Workers tests load
 * `.wrangler/build/api` (`pnpm build:regions`) while the pages project builds at the same time.
 */
export const buildDir = ".wrangler/node-stack";
/**
 * The bundles wrangler writes there, named after the local entries (`local.ts`: the production
 * entry plus the development routes and the seed).
 */
export const gatewayBundle = `${buildDir}/gateway/local.js`;
export const regionalBundle = `${buildDir}/api/local.js`;
// The gateway signs the actor context with each region's own secret; a region holds only its own.
const contextSecrets = { us: "stack-context-secret-us", eu: "stack-context-secret-eu" };
const gatewaySecrets = {
  GATEWAY_CONTEXT_SECRET_US: contextSecrets.us,
  GATEWAY_CONTEXT_SECRET_EU: contextSecrets.eu,
  IDENTITY_SECRET: "stack-identity-secret",
  SSO_STORE_SECRET: "stack-sso-store-secret",
  DEV_TOOLS: "true",
};
const regionSecrets = (region) => ({
  GATEWAY_CONTEXT_SECRET: contextSecrets[region],
  CURSOR_SECRET: "stack-cursor-secret",
  DEV_TOOLS: "true",
  // What the region names when it calls the gateway (the directory, forwarded MCP requests): a local
  // stack answers loopback host names only, and the port is chosen at start.
  PUBLIC_ORIGIN: "http://127.0.0.1",
});

/** Bundles the gateway and the regional Worker as `wrangler deploy` would. */
export function buildWorkers() {
  const quiet = { ...process.env, WRANGLER_LOG: "error" };
  const regionalConfigs = writeRegionalConfigs();
  execFileSync("wrangler", ["deploy", "--dry-run", "-c", gatewayConfigPath, "--outdir", `${buildDir}/gateway`], {
    env: quiet,
    stdio: "ignore",
  });
  execFileSync("wrangler", ["deploy", "--dry-run", "-c", regionalConfigs.us, "--outdir", `../../${buildDir}/api`], {
    env: quiet,
    stdio: "ignore",
  });
}

/** Miniflare options of a Worker, from its wrangler config (bindings, Durable Objects, D1) plus the built bundle. */
function workerFromConfig(configPath, scriptPath, extraBindings) {
  // Module rules and the root path describe how to load sources beside the config; a bundle needs neither.
  const {
    modulesRules: _rules,
    rootPath: _root,
    ...workerOptions
  } = unstable_getMiniflareWorkerOptions(configPath).workerOptions;
  return {
    ...workerOptions,
    modules: true,
    scriptPath: resolve(scriptPath),
    bindings: { ...workerOptions.bindings, ...extraBindings },
  };
}

/**
 * Starts the stack on a free port; `gatewayVars` and `regionVars` add or override variables.
 * `triggerHandlers` opens miniflare's `/cdn-cgi/local/email?from=..&to=..` entry (a raw message in
 * the body, handed to the gateway's `email()` as Email Routing would), for the inbox benchmark.
 * `extraWorkers` run beside the stack in the same runtime (the chaos benchmark's restarter).
 * `inspectorPort` opens workerd's inspector (one target per Worker, for CPU profiles).
 */
export async function startStack({
  gatewayVars = {},
  regionVars = {},
  triggerHandlers = false,
  extraWorkers = [],
  inspectorPort,
} = {}) {
  const regionalConfigs = writeRegionalConfigs();
  const gateway = workerFromConfig(gatewayConfigPath, gatewayBundle, { ...gatewaySecrets, ...gatewayVars });
  const options = convertV4MiniflareOptions({
    host: "127.0.0.1",
    port: 0,
    inspectorPort,
    unsafeTriggerHandlers: triggerHandlers,
    // Offline, the default fetches Request.cf's data from the network and warns when it cannot.
    cf: false,
    // The gateway logs a line per request; a benchmark sends hundreds of thousands.
    handleStructuredLogs: ({ level, message }) => {
      if (!message.startsWith('{"level":"info","message":"request"'))
        (level === "error" || level === "warn" ? console.error : console.log)(message);
    },
    workers: [
      { ...gateway, name: "crm-gateway" },
      {
        ...workerFromConfig(regionalConfigs.us, regionalBundle, {
          ...regionSecrets("us"),
          ...regionVars,
        }),
        name: "crm-api-us",
      },
      {
        ...workerFromConfig(regionalConfigs.eu, regionalBundle, {
          ...regionSecrets("eu"),
          ...regionVars,
        }),
        name: "crm-api-eu",
      },
      docsAssetsWorker(),
      ...extraWorkers,
    ],
  });
  const mf = new Miniflare(options);
  const url = await mf.ready;
  await migrateAll((target) => mf.getD1Database(target.binding, target.worker));
  const demo = await (await mf.dispatchFetch(new URL("/__dev/seed", url), { method: "POST" })).json();
  // `options` restart the stack's isolates (`mf.setOptions(options)`), its data kept: the cold-start benchmark.
  return { mf, url, demo, options };
}

/** The D1 shard a demo organization (an entry of `demo.organizations`) lives in, as its region's Worker binds it. */
export const organizationDatabase = (stack, organization) =>
  stack.mf.getD1Database(shardBinding(organization.shard), `crm-api-${organization.region}`);
