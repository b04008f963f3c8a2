// Starts the whole local stack: the gateway and both regional API Workers (us, eu) in one
// `wrangler dev`, each region with its own local D1 shards (us two, eu one), migrations applied, and the demo seed of
// DESIGN.md section 13 loaded. Prints the base URL, the console's, alice's password and key; writes
// .dev/demo.json.
// Safe to run again: secrets and state persist, and the seed is idempotent.
// `--port=<n>` starts a second stack beside the one on 8787 (the MCP checks of `pnpm run check` do):
// it keeps its own state (.wrangler/state-<n>) and demo file (.dev/demo-<n>.json).
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { convertV4MiniflareOptions, Miniflare } from "miniflare";
import { unstable_getMiniflareWorkerOptions } from "wrangler";
import { gatewayConfigPath, migrateAll, migrationTargets, writeRegionalConfigs } from "./lib/databases.mjs";
import { copyDocsAssets, docsAssetsConfigPath } from "./lib/docs-assets.mjs";

const defaultPort = 8787;
const port = Number(process.argv.find((arg) => arg.startsWith("--port="))?.slice("--port=".length) ?? defaultPort);
if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`--port must be a TCP port, not ${port}`);
const origin = `http://127.0.0.1:${port}`;
const ownState = port === defaultPort ? "" : `-${port}`;
const state = resolve(`.wrangler/state${ownState}`);
const demoFile = `.dev/demo${ownState}.json`;
const configs = { gateway: gatewayConfigPath, ...writeRegionalConfigs() };

mkdirSync(".dev", { recursive: true });
const secretsFile = ".dev/secrets.json";
if (!existsSync(secretsFile)) {
  const secret = () => randomBytes(32).toString("base64url");
  writeFileSync(secretsFile, JSON.stringify({ GATEWAY_CONTEXT_SECRET: secret(), CURSOR_SECRET: secret() }, null, 2));
}
const secrets = JSON.parse(readFileSync(secretsFile, "utf8"));
// Added later (IDENTITY_SECRET with issue 12, SSO_STORE_SECRET with 16): a secrets file written
// before then gets them now, keeping the others.
for (const name of ["IDENTITY_SECRET", "SSO_STORE_SECRET"]) {
  if (secrets[name]) continue;
  secrets[name] = randomBytes(32).toString("base64url");
  writeFileSync(secretsFile, JSON.stringify(secrets, null, 2));
}
// wrangler reads local secrets from .dev.vars beside each Worker's config. DEV_TOOLS turns on the seed route.
// Both regional configs live in workers/api and so read one .dev.vars: locally the two regions share
// one context secret (a deployment gives each its own, docs/deploy.md); the region a context names
// still keeps it from serving the other region.
const devVars = (vars) =>
  `${[...Object.entries(vars).map(([name, value]) => `${name}=${value}`), "DEV_TOOLS=true"].join("\n")}\n`;
const contextSecret = secrets.GATEWAY_CONTEXT_SECRET;
writeFileSync(
  ".dev.vars",
  devVars({
    GATEWAY_CONTEXT_SECRET_US: contextSecret,
    GATEWAY_CONTEXT_SECRET_EU: contextSecret,
    IDENTITY_SECRET: secrets.IDENTITY_SECRET,
    // The identity service's pushes of SSO connections are signed with it (scripts/store-sso-connection.mjs).
    SSO_STORE_SECRET: secrets.SSO_STORE_SECRET,
  }),
);
// Local receivers (http://127.0.0.1:<port>) may subscribe to webhooks in the dev stack only.
writeFileSync(
  "workers/api/.dev.vars",
  // Unsubscribe links in locally sent mail (.eml files wrangler names in its log) open on the stack on
  // 8787. A stack on another port writes the same file (wrangler reads the regions' variables only from
  // here), so that it never redirects the links of a stack running beside it.
  `${devVars({
    GATEWAY_CONTEXT_SECRET: contextSecret,
    CURSOR_SECRET: secrets.CURSOR_SECRET,
    PUBLIC_ORIGIN: `http://127.0.0.1:${defaultPort}`,
  })}WEBHOOKS_ALLOW_LOOPBACK=true\n`,
);

// The docs-assets Worker's [assets] directory: Scalar's build for the reference page at /api/v1/docs.
copyDocsAssets();

/**
 * Migrations go through the same applier as in tests and benchmarks, onto the state `wrangler dev
 * --persist-to` keeps (its `v3` folder): every database of the configs, by its local id, bound to a
 * Worker that exists only for this.
 */
async function migrateLocalState() {
  const databaseId = (target) => unstable_getMiniflareWorkerOptions(target.config).workerOptions.d1Databases[target.binding].id;
  const mf = new Miniflare(
    convertV4MiniflareOptions({
      modules: true,
      script: "export default {}",
      // Offline, miniflare cannot fetch the Request.cf data and warns: the placeholder it falls back to serves.
      cf: false,
      resourcePersistencePath: resolve(state, "v3"),
      d1Databases: Object.fromEntries(migrationTargets().map((target) => [target.databaseName, databaseId(target)])),
    }),
  );
  try {
    await migrateAll((target) => mf.getD1Database(target.databaseName));
  } finally {
    await mf.dispose();
  }
}
await migrateLocalState();

// Local observability costs ~3 ms a request and fills .wrangler/state (RECIPES.md); offline, miniflare
// cannot fetch the Request.cf data and warns on every start (the same switch as `cf: false` above).
const local = { ...process.env, X_LOCAL_OBSERVABILITY: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" };

const wrangler = spawn(
  "wrangler",
  [
    "dev",
    "-c",
    configs.gateway,
    "-c",
    configs.us,
    "-c",
    configs.eu,
    "-c",
    docsAssetsConfigPath,
    "--ip",
    "127.0.0.1",
    "--port",
    String(port),
    "--persist-to",
    state,
    "--log-level",
    "warn",
    "--show-interactive-dev-session=false",
  ],
  { env: local, stdio: ["ignore", "inherit", "inherit"] },
);
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => wrangler.kill(signal));
wrangler.on("exit", (code) => process.exit(code ?? 0));

async function waitForGateway() {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(`${origin}/api/v1/openapi.json`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((done) => setTimeout(done, 250));
  }
  throw new Error("the local stack did not start within 120 s");
}

try {
  await waitForGateway();
  const response = await fetch(`${origin}/__dev/seed`, { method: "POST" });
  if (!response.ok) throw new Error(`seeding failed: ${response.status} ${await response.text()}`);
  const demo = await response.json();
  writeFileSync(demoFile, `${JSON.stringify(demo, null, 2)}\n`);
  const alice = demo.organizations[0].users[0];
  console.log(`
  CRM API running at ${demo.baseUrl}
  console: ${origin}/console (alice: ${alice.email} / ${alice.password})
  alice's key (Acme owner, every scope): ${alice.apiKey}
  every demo user, password, key and OAuth client: ${demoFile} · reference: ${demo.baseUrl}/docs

  curl -H "Authorization: Bearer ${alice.apiKey}" ${demo.baseUrl}/workspaces
`);
} catch (error) {
  console.error(String(error));
  wrangler.kill("SIGTERM");
  process.exitCode = 1;
}
