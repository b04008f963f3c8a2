// Writes the regional Workers' wrangler files (workers/api/wrangler.<region>.jsonc) from the one
// template. Local by default (what `pnpm build:regions` and the stack use); for production:
//   node scripts/regional-configs.mjs --production <ids.json> --var PUBLIC_ORIGIN=https://api.example.com
// where ids.json maps each database name (crm-us-1, …) to its id. A dev switch among the vars fails.
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { writeRegionalConfigs } from "./lib/databases.mjs";

const { values } = parseArgs({
  options: { production: { type: "string" }, var: { type: "string", multiple: true, default: [] } },
});
const vars = Object.fromEntries(values.var.map((pair) => [pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1)]));
writeRegionalConfigs(
  values.production
    ? { environment: "production", databaseIds: JSON.parse(readFileSync(values.production, "utf8")), vars }
    : { environment: "local", vars },
);
