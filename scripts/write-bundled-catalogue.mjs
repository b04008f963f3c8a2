// Writes what the gateway would otherwise build from the catalogue in every isolate: the OpenAPI
// document's template (everything but the origin), as a module the gateway bundles. Run by the
// gateway's wrangler build (dev, deploy, the benchmark's bundles) and by the test config, so the
// bundled document is always made from the catalogue it ships with; never committed.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { build } from "esbuild";

const entry = "packages/contracts/src/openapi.ts";
// Per process: the test config, the pages tests' build and the MCP checks' dev stack may run it at once.
const bundled = `.wrangler/catalogue/openapi-${process.pid}.mjs`;
const output = "workers/gateway/src/generated/openapi-template.js";

await build({ entryPoints: [entry], bundle: true, platform: "node", format: "esm", outfile: bundled, logLevel: "warning" });
const { openApiTemplate } = await import(`${process.cwd()}/${bundled}?${Date.now()}`);
rmSync(bundled);
// A string literal parses faster than the same object as code, and only when the gateway first needs it.
const module = `// Written by scripts/write-bundled-catalogue.mjs from the catalogue; not committed.\nexport const openApiTemplateJson = ${JSON.stringify(JSON.stringify(openApiTemplate()))};\n`;
mkdirSync("workers/gateway/src/generated", { recursive: true });
let current = null;
try {
  current = readFileSync(output, "utf8");
} catch {}
// Unchanged output is not rewritten: `wrangler dev` would otherwise see a change and rebuild again.
if (current !== module) writeFileSync(output, module);
