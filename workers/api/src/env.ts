import type { ActorContext, InputNaming } from "@crm/contracts";
import type { RegionBindings } from "./bindings";
import type { Database } from "./database";
import type { Directory } from "./directory";
import type { WebhookBurst } from "./domain/webhooks/burst";
import type { WebhookEndpoint } from "./domain/webhooks/endpoint-lane";

/** Bindings of a regional API Worker (one deployment per region). */
export interface RegionEnv extends RegionBindings {
  /** Token bucket per workspace: the burst limit of webhook deliveries. */
  WEBHOOK_BURST: DurableObjectNamespace<WebhookBurst>;
  /** One lane per subscription: keeps its deliveries, sends them, runs its circuit breaker. */
  WEBHOOK_ENDPOINTS: DurableObjectNamespace<WebhookEndpoint>;
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
