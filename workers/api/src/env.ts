import type { ActorContext } from "@crm/contracts";
import type { DrizzleD1Database } from "drizzle-orm/d1";

/** Bindings of a regional API Worker (one deployment per region). */
export interface RegionEnv {
  REGION: "us" | "eu";
  DB: D1Database;
  /** Shared with the gateway: verifies the signed actor context. */
  GATEWAY_CONTEXT_SECRET: string;
  /** Protects pagination cursors against tampering. */
  CURSOR_SECRET: string;
  /** "true" only in the local stack and tests: enables the seed route. */
  DEV_TOOLS?: string;
}

export type Database = DrizzleD1Database;

export interface RegionVariables {
  requestId: string;
  actor: ActorContext;
  db: Database;
}

export type AppEnv = { Bindings: RegionEnv; Variables: RegionVariables };

/** A missing binding fails loudly at the first request, not deep inside a handler. */
export function assertRegionEnv(env: RegionEnv): void {
  const missing = (["REGION", "DB", "GATEWAY_CONTEXT_SECRET", "CURSOR_SECRET"] as const).filter((name) => !env[name]);
  if (missing.length > 0) throw new Error(`Regional Worker misconfigured: missing ${missing.join(", ")}`);
}
