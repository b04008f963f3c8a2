// The API reference page (`/api/v1/docs`) runs Scalar's ESM standalone build, served by Workers Static
// Assets from the `crm-docs-assets` Worker (workers/docs-assets/wrangler.toml, reached through the
// gateway's `/docs-assets/*`), never a CDN: the page works offline and in tests. The build is ~4.5 MB,
// so it is copied from node_modules at dev, test and deploy time, not committed.
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { unstable_getMiniflareWorkerOptions } from "wrangler";

/** The assets-only Worker of the reference page's files, whose `[assets]` directory is `static` beside it. */
export const docsAssetsConfigPath = "workers/docs-assets/wrangler.toml";
/** Its `[assets]` directory and, inside it, where the page loads Scalar from. */
const assetsDirectory = resolve("workers/docs-assets/static");
const scalarDirectory = join(assetsDirectory, "docs-assets/scalar");

/** Where pnpm installed the gateway's @scalar/api-reference (its exports map hides package.json, so find it from the entry). */
function scalarPackage() {
  const require = createRequire(resolve("workers/gateway/package.json"));
  let directory = dirname(require.resolve("@scalar/api-reference"));
  while (!existsSync(join(directory, "package.json"))) directory = dirname(directory);
  return directory;
}

/**
 * Copies the entry (`standalone.esm.js`) and the chunks it imports, without source maps, and writes
 * the version beside them. Skipped when the copy is of the installed version already.
 */
export function copyDocsAssets() {
  const source = scalarPackage();
  const { version } = JSON.parse(readFileSync(join(source, "package.json"), "utf8"));
  const stamp = join(scalarDirectory, "VERSION");
  if (existsSync(stamp) && readFileSync(stamp, "utf8") === version) return;
  const browser = join(source, "dist/browser");
  rmSync(scalarDirectory, { recursive: true, force: true });
  mkdirSync(join(scalarDirectory, "chunks"), { recursive: true });
  copyFileSync(join(browser, "standalone.esm.js"), join(scalarDirectory, "standalone.esm.js"));
  for (const chunk of readdirSync(join(browser, "chunks")).filter((name) => name.endsWith(".js"))) {
    copyFileSync(join(browser, "chunks", chunk), join(scalarDirectory, "chunks", chunk));
  }
  writeFileSync(stamp, version);
}

/**
 * The assets-only Worker as a miniflare Worker, from its wrangler config: miniflare needs a script,
 * and with no user Worker in the config its assets router never calls it (wrangler's own stand-in
 * for an assets-only Worker answers 404 the same way).
 */
export function docsAssetsWorker() {
  copyDocsAssets();
  const { assets, compatibilityDate } = unstable_getMiniflareWorkerOptions(docsAssetsConfigPath).workerOptions;
  return {
    name: "crm-docs-assets",
    modules: true,
    script: 'export default { fetch: () => new Response("Not found", { status: 404 }) };',
    compatibilityDate,
    assets,
  };
}
