// The API reference page (`/api/v1/docs`) runs Scalar's ESM standalone build, served by Workers Static
// Assets from the gateway's `[assets]` directory, never a CDN: the page works offline and in tests.
// The build is ~4.5 MB, so it is copied from node_modules at dev, test and deploy time, not committed.
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";

/** The gateway's `[assets]` directory (wrangler.toml) and, inside it, where the page loads Scalar from. */
export const assetsDirectory = resolve("workers/gateway/static");
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
