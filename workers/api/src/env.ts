import { type ActorContext, type InputNaming, type Region, shardBinding, shardsOf } from "@crm/contracts";
import type { DrizzleD1Database } from "drizzle-orm/d1";
import type { Directory } from "./directory";
import type { WebhookBurst } from "./domain/webhooks/burst";
import type { WebhookEndpoint } from "./domain/webhooks/endpoint-lane";
import type { DeliveryMessage, EventsMessage } from "./domain/webhooks/messages";

/** Bindings of a regional API Worker (one deployment per region). */
export interface RegionEnv {
  REGION: Region;
  /** One D1 per shard of the region (`DB_1`, `DB_2`, …; `regionShards` in contracts): an organization's data lives in one. */
  [shard: `DB_${number}`]: D1Database;
  /** This region's own context secret (the gateway holds one per region): verifies the signed actor context. */
  GATEWAY_CONTEXT_SECRET: string;
  /** Protects pagination cursors against tampering. */
  CURSOR_SECRET: string;
  /** "true" only in the local stack and tests: enables the seed route. */
  DEV_TOOLS?: string;
  /** Domain events leaving the outbox, fanned out to subscriptions. */
  EVENTS: Queue<EventsMessage>;
  /** One message per (event, subscription) delivery attempt. */
  DELIVERIES: Queue<DeliveryMessage>;
  /** Deliveries that failed their last attempt, kept for inspection. */
  DELIVERIES_DEAD: Queue<DeliveryMessage>;
  /** Token bucket per workspace: the burst limit of webhook deliveries. */
  WEBHOOK_BURST: DurableObjectNamespace<WebhookBurst>;
  /** One lane per subscription: keeps its deliveries, sends them, runs its circuit breaker. */
  WEBHOOK_ENDPOINTS: DurableObjectNamespace<WebhookEndpoint>;
  /** "true" in local development and tests only: http://127.0.0.1 and localhost receivers are allowed. */
  WEBHOOKS_ALLOW_LOOPBACK?: string;
  /** Multiplies the webhook burst limit; set only by the benchmark. */
  WEBHOOK_BURST_FACTOR?: string;
  /** Milliseconds a receiver may take to answer (15 000); tests shorten it. */
  WEBHOOK_TIMEOUT_MS?: string;
  /** Seconds between attempts, comma-separated; tests shorten the schedule of DESIGN.md section 10. */
  WEBHOOK_RETRY_SCHEDULE?: string;
  /** Outbound mail of the shared inbox (Email Service). */
  SEND_EMAIL: SendEmail;
  /** This region's bucket: attachments of inbound mail, and the raw MIME of each sent message. */
  ATTACHMENTS: R2Bucket;
  /** The gateway's public origin (`https://…`): unsubscribe links in sent mail point there, forwarded MCP requests go there. */
  PUBLIC_ORIGIN: string;
  /** The gateway Worker: the region's public MCP and OAuth discovery paths forward to it (`gateway-forward.ts`). */
  GATEWAY: Fetcher;
}

export type Database = DrizzleD1Database;

/** A shard's database, with its number: what the shard's events and deliveries carry in their queue messages. */
export interface ShardDatabase {
  shard: number;
  db: Database;
}

/** Top-level properties of a response that hold a secret, and what a replay says in their place. */
export interface ResponseSecrets {
  properties: string[];
  notice: string;
}

export interface RegionVariables {
  requestId: string;
  actor: ActorContext;
  /** The shard the request's organization lives in, as the gateway signed it, and its database. */
  shard: number;
  db: Database;
  /** How the surface that called names invalid inputs in errors (`body.fields.email` on REST, `fields.email` for MCP). */
  inputNaming?: InputNaming;
  /** Signs list cursors (`CURSOR_SECRET`). */
  cursorSecret: string;
  /** The organization's people (names, addresses, agents), asked of the gateway: see `directory.ts`. */
  directory: Directory;
  /** Set by a handler whose response shows a secret (see `keepSecretsFromReplay`). */
  responseSecrets?: ResponseSecrets;
  /** The `updatedAt` of the version `If-Match` named (`conditional-requests.ts`): a change applies to it only. */
  precondition?: number;
}

/** What a domain service needs of the request it serves: handlers pass `c.var`. */
export type ServiceContext = Pick<RegionVariables, "db" | "actor" | "cursorSecret" | "directory" | "precondition">;

export type AppEnv = { Bindings: RegionEnv; Variables: RegionVariables };

/** A missing binding fails loudly at the first request, not deep inside a handler. */
export function assertRegionEnv(env: RegionEnv): void {
  const required = [
    "REGION",
    ...(env.REGION ? shardsOf(env.REGION) : []).map((shard) => shardBinding(shard) as `DB_${number}`),
    "GATEWAY_CONTEXT_SECRET",
    "CURSOR_SECRET",
    "SEND_EMAIL",
    "ATTACHMENTS",
    "PUBLIC_ORIGIN",
    "GATEWAY",
  ] as const;
  const missing = required.filter((name) => !env[name]);
  if (missing.length > 0) throw new Error(`Regional Worker misconfigured: missing ${missing.join(", ")}`);
}
