import type { Region } from "@crm/contracts";
import type { DeliveriesQueueMessage, DeliveryMessage, EventsMessage } from "./domain/webhooks/messages";

/**
 * Bindings of a regional API Worker (one deployment per region), all but its Durable Object
 * namespaces: the objects' own classes take these (`env.ts` adds the namespaces), so naming the
 * classes here would make a circle.
 */
export interface RegionBindings {
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
  DELIVERIES: Queue<DeliveriesQueueMessage>;
  /** Deliveries that failed their last attempt, kept for inspection. */
  DELIVERIES_DEAD: Queue<DeliveryMessage>;
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
