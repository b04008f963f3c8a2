import type { ActorContext } from "@crm/contracts";
import type { DrizzleD1Database } from "drizzle-orm/d1";
import type { UsageRecorder } from "./usage-recorder";

/** Bindings of the gateway Worker. */
export interface GatewayEnv {
  /** Control plane: organizations, users, memberships, agents, API keys. */
  CONTROL_DB: D1Database;
  /** One service binding per region; the regional Workers have no public route. */
  API_US: Fetcher;
  API_EU: Fetcher;
  /** One object per organization: gathers lastUsedAt, key activity and token usage, flushed to CONTROL_DB. */
  USAGE_RECORDER: DurableObjectNamespace<UsageRecorder>;
  /** Signs the actor context the regions trust. */
  GATEWAY_CONTEXT_SECRET: string;
  /** "true" only in the local stack and tests: enables the demo seed route. */
  DEV_TOOLS?: string;
}

export type Region = "us" | "eu";

export interface GatewayVariables {
  requestId: string;
  controlDb: DrizzleD1Database;
  actor: Omit<ActorContext, "requestId" | "operationId" | "issuedAt"> & { region: Region };
}

export type GatewayAppEnv = { Bindings: GatewayEnv; Variables: GatewayVariables };

export function assertGatewayEnv(env: GatewayEnv): void {
  const missing = (["CONTROL_DB", "API_US", "API_EU", "USAGE_RECORDER", "GATEWAY_CONTEXT_SECRET"] as const).filter(
    (name) => !env[name],
  );
  if (missing.length > 0) throw new Error(`Gateway misconfigured: missing ${missing.join(", ")}`);
}
