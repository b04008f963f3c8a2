// Lints the public OpenAPI document with Redocly's recommended rules (0 errors, 0 warnings) and
// with Spectral's OpenAPI and OWASP API Security rules (.spectral.yaml, 0 errors). The document
// is generated from the route catalogue exactly as the gateway serves it.
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { build } from "esbuild";

const outDir = ".wrangler/openapi";
mkdirSync(outDir, { recursive: true });
await build({
  entryPoints: ["packages/contracts/src/openapi.ts"],
  bundle: true,
  platform: "node",
  format: "esm",
  outfile: `${outDir}/openapi.mjs`,
  logLevel: "warning",
});
const { openApiDocument } = await import(`${process.cwd()}/${outDir}/openapi.mjs`);
writeFileSync(`${outDir}/openapi.json`, JSON.stringify(openApiDocument("https://api.crm.example"), null, 2));
execFileSync("redocly", ["lint", `${outDir}/openapi.json`, "--format", "stylish", "--max-problems", "1000"], {
  stdio: "inherit",
});
execFileSync("spectral", ["lint", `${outDir}/openapi.json`, "--ruleset", ".spectral.yaml", "--fail-severity", "error"], {
  stdio: "inherit",
});
