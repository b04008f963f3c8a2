import type { Region } from "@crm/contracts";
import type { RegionalConfigOptions } from "../../workers/api/wrangler-template";

export const regions: readonly Region[];
export const gatewayConfigPath: string;
export function regionalConfigPath(region: Region): string;
export function writeRegionalConfigs(options?: RegionalConfigOptions): Record<Region, string>;
export interface MigrationTarget {
  worker: string;
  binding: string;
  databaseName: string;
  config: string;
  directory: string;
}
export function migrationTargets(): MigrationTarget[];
export function migrateAll(databaseOf: (target: MigrationTarget) => D1Database | Promise<D1Database>): Promise<void>;
