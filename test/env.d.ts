import type { D1Migration } from "cloudflare:test";
import type { WebhookBurst } from "../workers/api/src/domain/webhooks/burst";
import type { WebhookEndpoint } from "../workers/api/src/domain/webhooks/endpoint-lane";
import type { DeliveryMessage, EventsMessage } from "../workers/api/src/domain/webhooks/messages";
import type { GatewayEnv } from "../workers/gateway/src/env";

declare global {
  namespace Cloudflare {
    /** Bindings of the test Worker: the gateway's, plus the regional databases and migrations. */
    interface Env extends GatewayEnv {
      /** Each region's shards, as the regional Workers bind them (`DB_1`, …); see `shardDatabase` in fixtures.ts. */
      US_DB_1: D1Database;
      US_DB_2: D1Database;
      EU_DB_1: D1Database;
      /** The regions' attachment buckets (attachments, and the raw MIME of sent mail). */
      ATTACHMENTS_US: R2Bucket;
      ATTACHMENTS_EU: R2Bucket;
      CONTROL_MIGRATIONS: D1Migration[];
      REGIONAL_MIGRATIONS: D1Migration[];
      WEBHOOK_BURST_US: DurableObjectNamespace<WebhookBurst>;
      WEBHOOK_ENDPOINTS_US: DurableObjectNamespace<WebhookEndpoint>;
      EVENTS_US: Queue<EventsMessage>;
      DELIVERIES_US: Queue<DeliveryMessage>;
      /** Real send_email bindings that refuse one recipient each (see vitest.config.ts). */
      MAIL_REFUSING_SECOND: SendEmail;
      MAIL_REFUSING_FIRST: SendEmail;
      /** The webhook receiver of test/node/receiver.ts. */
      RECEIVER_URL: string;
    }
  }
}
