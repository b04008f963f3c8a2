// Starts the whole local stack: the gateway and both regional API Workers (us, eu) in one
// `wrangler dev`, each with its own local D1, migrations applied, and the demo seed of
// DESIGN.md section 13 loaded. Prints the base URL, the console's, alice's password and key; writes
// .dev/demo.json.
// Safe to run again: secrets and state persist, and the seed is idempotent.
// `--port=<n>` starts a second stack beside the one on 8787 (the MCP checks of `pnpm run check` do):
// it keeps its own state (.wrangler/state-<n>) and demo file (.dev/demo-<n>.json).
import { execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { copyDocsAssets } from "./lib/docs-assets.mjs";

const defaultPort = 8787;
const port = Number(process.argv.find((arg) => arg.startsWith("--port="))?.slice("--port=".length) ?? defaultPort);
if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`--port must be a TCP port, not ${port}`);
const origin = `http://127.0.0.1:${port}`;
const ownState = port === defaultPort ? "" : `-${port}`;
const state = resolve(`.wrangler/state${ownState}`);
const demoFile = `.dev/demo${ownState}.json`;
const configs = { gateway: "wrangler.toml", us: "workers/api/wrangler.us.toml", eu: "workers/api/wrangler.eu.toml" };

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

// The gateway's [assets] directory: Scalar's build for the reference page at /api/v1/docs.
copyDocsAssets();

const quiet = { ...process.env, WRANGLER_LOG: "warn", X_LOCAL_OBSERVABILITY: "false", CI: "true" };
for (const [database, config] of [
  ["crm-control", configs.gateway],
  ["crm-us", configs.us],
  ["crm-eu", configs.eu],
]) {
  execFileSync("wrangler", ["d1", "migrations", "apply", database, "--local", "--persist-to", state, "-c", config], {
    env: quiet,
    stdio: ["ignore", "ignore", "inherit"],
  });
}

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
  { env: { ...process.env, X_LOCAL_OBSERVABILITY: "false" }, stdio: ["ignore", "inherit", "inherit"] },
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
