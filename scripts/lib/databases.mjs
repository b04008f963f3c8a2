// Where the regional Workers' wrangler files and every database's migrations come from, for the
// scripts that run the stack (dev, benchmarks, browser checks) and for deploy. The configs are made
// from one template (workers/api/wrangler-template.ts); the migrations go through one applier
// (packages/db/src/migrations.ts) to the control D1 and every shard of every region.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { readD1Migrations } from "@cloudflare/vitest-plugin";
import { applyMigrations } from "../../packages/db/src/migrations.ts";
import { regionalWorkerConfig, regions, shardDatabases } from "../../workers/api/wrangler-template.ts";

export { regions };
export const gatewayConfigPath = "wrangler.toml";
/** Written beside the regional Worker's sources, so the template's relative paths (main, migrations) hold. */
export const regionalConfigPath = (region) => `workers/api/wrangler.${region}.jsonc`;

/**
 * Writes each region's wrangler file from the template (local by default; deploy passes
 * `{ environment: "production", databaseIds, vars }`) and returns their paths by region.
 */
export function writeRegionalConfigs(options = { environment: "local" }) {
  const paths = {};
  for (const region of regions) {
    const header = "// Generated from workers/api/wrangler-template.ts by scripts/lib/databases.mjs: edit the template.\n";
    const config = `${header}${JSON.stringify(regionalWorkerConfig(region, options), null, 2)}\n`;
    // Rewritten only when it changed: the test projects read these files while another builds.
    if (!existsSync(regionalConfigPath(region)) || readFileSync(regionalConfigPath(region), "utf8") !== config)
      writeFileSync(regionalConfigPath(region), config);
    paths[region] = regionalConfigPath(region);
  }
  return paths;
}

/** Every D1 database and the migrations it takes: the control D1, then each shard of each region. */
export function migrationTargets() {
  return [
    {
      worker: "crm-gateway",
      binding: "CONTROL_DB",
      databaseName: "crm-control",
      config: gatewayConfigPath,
      directory: "migrations/control",
    },
    ...regions.flatMap((region) =>
      shardDatabases(region).map(({ binding, databaseName }) => ({
        worker: `crm-api-${region}`,
        binding,
        databaseName,
        config: regionalConfigPath(region),
        directory: "migrations/regional",
      })),
    ),
  ];
}

/** Applies what each target lacks; `databaseOf(target)` gives its D1 (a miniflare binding). */
export async function migrateAll(databaseOf) {
  for (const target of migrationTargets()) {
    await applyMigrations(await databaseOf(target), await readD1Migrations(target.directory));
  }
}
