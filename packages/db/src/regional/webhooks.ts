import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * Transactional outbox: every event is inserted in the same D1 batch as the change it announces,
 * then handed to the events Queue; `queuedAt` stays null until the Queue has accepted it, so a
 * crash between the two loses nothing (a sweeper re-queues what is left).
 */
export const eventOutbox = sqliteTable(
  "event_outbox",
  {
    id: text("id").primaryKey(),
    organizationId: text("organization_id").notNull(),
    workspaceId: text("workspace_id").notNull(),
    objectTypeId: text("object_type_id"),
    type: text("type").notNull(),
    /** The whole event as delivered (DESIGN.md section 10 payload), JSON. */
    payload: text("payload").notNull(),
    createdAt: integer("created_at").notNull(),
    queuedAt: integer("queued_at"),
    /** When a dispatcher took the row to send it; see `dispatchOutbox`. */
    claimedAt: integer("claimed_at"),
    /** When the row was set aside as one that cannot be sent, and why; such a row is never claimed again. */
    setAsideAt: integer("set_aside_at"),
    setAsideReason: text("set_aside_reason"),
  },
  (table) => [
    index("event_outbox_unqueued").on(table.queuedAt, table.createdAt),
    index("event_outbox_feed").on(table.workspaceId),
    index("event_outbox_feed_since").on(table.workspaceId, table.createdAt),
  ],
);

/** Outbound webhook subscriptions of a workspace. The secret signs deliveries (Standard Webhooks). */
export const webhooks = sqliteTable(
  "webhooks",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id").notNull(),
    url: text("url").notNull(),
    eventTypes: text("event_types", { mode: "json" }).$type<string[]>().notNull(),
    objectTypeIds: text("object_type_ids", { mode: "json" }).$type<string[]>().notNull(),
    description: text("description"),
    isActive: integer("is_active", { mode: "boolean" }).notNull(),
    /** Why delivery stopped on its own: "gone" after the receiver answered 410. */
    disabledReason: text("disabled_reason"),
    secret: text("secret").notNull(),
    /** The secret before the last rotation, still signing until `previousSecretExpiresAt`. */
    previousSecret: text("previous_secret"),
    previousSecretExpiresAt: integer("previous_secret_expires_at"),
    createdBy: text("created_by").notNull(),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
    /** When `url` last changed (null: never since creation): a replay sends only what was written after. */
    urlChangedAt: integer("url_changed_at"),
  },
  (table) => [index("webhooks_workspace").on(table.workspaceId, table.createdAt, table.id)],
);

/**
 * Every delivery attempt, and every time the burst limit held one back (`rate_limited`). A delivery
 * (one event to one subscription) keeps its id, the `webhook-id` header, across retries.
 */
export const webhookAttempts = sqliteTable(
  "webhook_attempts",
  {
    id: text("id").primaryKey(),
    deliveryId: text("delivery_id").notNull(),
    attempt: integer("attempt").notNull(),
    webhookId: text("webhook_id").notNull(),
    eventId: text("event_id").notNull(),
    eventType: text("event_type").notNull(),
    status: text("status", { enum: ["delivered", "failed", "retrying", "rate_limited"] }).notNull(),
    responseStatus: integer("response_status"),
    error: text("error"),
    durationMs: integer("duration_ms"),
    nextAttemptAt: integer("next_attempt_at"),
    createdAt: integer("created_at").notNull(),
  },
  (table) => [
    index("webhook_attempts_webhook").on(table.webhookId, table.createdAt, table.id),
    index("webhook_attempts_delivery").on(table.deliveryId, table.createdAt),
  ],
);
