import type { RecordViewConfig } from "@crm/contracts";
import { index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/** Data plane: one D1 per region. An organization's data lives only in its region's database. */

export const workspaces = sqliteTable(
  "workspaces",
  {
    id: text("id").primaryKey(),
    organizationId: text("organization_id").notNull(),
    name: text("name").notNull(),
    description: text("description"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (table) => [index("workspaces_org_created").on(table.organizationId, table.createdAt, table.id)],
);

export const workspaceMembers = sqliteTable(
  "workspace_members",
  {
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    userId: text("user_id").notNull(),
    role: text("role", { enum: ["owner", "admin", "manager", "member", "viewer"] }).notNull(),
    /** Inbox permission: all messages, or only conversations linked to a record (read, or read and reply). */
    inboxAccess: text("inbox_access", { enum: ["all", "record_read", "record_reply"] }).notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (table) => [primaryKey({ columns: [table.workspaceId, table.userId] }), index("workspace_members_user").on(table.userId)],
);

/** Idempotency records, scoped to organization + credential + key, kept 24 h (DESIGN.md section 5). */
export const idempotencyKeys = sqliteTable(
  "idempotency_keys",
  {
    organizationId: text("organization_id").notNull(),
    credentialId: text("credential_id").notNull(),
    key: text("key").notNull(),
    requestHash: text("request_hash").notNull(),
    state: text("state", { enum: ["in_flight", "completed"] }).notNull(),
    responseStatus: integer("response_status"),
    responseBody: text("response_body"),
    /** An in-flight claim older than this is taken to be abandoned (the Worker died mid-request). */
    lockedUntil: integer("locked_until").notNull(),
    expiresAt: integer("expires_at").notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.organizationId, table.credentialId, table.key] }),
    index("idempotency_keys_expiry").on(table.expiresAt),
  ],
);

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
  },
  (table) => [index("event_outbox_unqueued").on(table.queuedAt, table.createdAt)],
);

/** CRM object types of a workspace: the system ones (people, companies, deals) and custom ones. */
export const objectTypes = sqliteTable(
  "object_types",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    slug: text("slug").notNull(),
    nameSingular: text("name_singular").notNull(),
    namePlural: text("name_plural").notNull(),
    icon: text("icon"),
    color: text("color"),
    isSystem: integer("is_system", { mode: "boolean" }).notNull(),
    isActive: integer("is_active", { mode: "boolean" }).notNull(),
    position: integer("position").notNull(),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (table) => [uniqueIndex("object_types_workspace_slug").on(table.workspaceId, table.slug)],
);

export const fieldDefinitions = sqliteTable(
  "field_definitions",
  {
    id: text("id").primaryKey(),
    objectTypeId: text("object_type_id")
      .notNull()
      .references(() => objectTypes.id, { onDelete: "cascade" }),
    workspaceId: text("workspace_id").notNull(),
    slug: text("slug").notNull(),
    name: text("name").notNull(),
    type: text("type").notNull(),
    isRequired: integer("is_required", { mode: "boolean" }).notNull(),
    isUnique: integer("is_unique", { mode: "boolean" }).notNull(),
    /** JSON of the default value, validated against the type; null when none. */
    defaultValue: text("default_value", { mode: "json" }).$type<unknown>(),
    isSystem: integer("is_system", { mode: "boolean" }).notNull(),
    /** Relation fields: one record or many. Multiselect is always many. */
    isMultiple: integer("is_multiple", { mode: "boolean" }).notNull(),
    relationObjectTypeId: text("relation_object_type_id"),
    position: integer("position").notNull(),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (table) => [
    uniqueIndex("field_definitions_object_type_slug").on(table.objectTypeId, table.slug),
    index("field_definitions_relation").on(table.relationObjectTypeId),
  ],
);

export const fieldOptions = sqliteTable(
  "field_options",
  {
    id: text("id").primaryKey(),
    fieldDefinitionId: text("field_definition_id")
      .notNull()
      .references(() => fieldDefinitions.id, { onDelete: "cascade" }),
    value: text("value").notNull(),
    label: text("label").notNull(),
    color: text("color").notNull(),
    position: integer("position").notNull(),
    isDefault: integer("is_default", { mode: "boolean" }).notNull(),
    isActive: integer("is_active", { mode: "boolean" }).notNull(),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (table) => [uniqueIndex("field_options_field_value").on(table.fieldDefinitionId, table.value)],
);

export const recordViews = sqliteTable(
  "record_views",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id").notNull(),
    objectTypeId: text("object_type_id")
      .notNull()
      .references(() => objectTypes.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    type: text("type", { enum: ["table", "kanban"] }).notNull(),
    emoji: text("emoji"),
    isDefault: integer("is_default", { mode: "boolean" }).notNull(),
    position: integer("position").notNull(),
    config: text("config", { mode: "json" }).$type<RecordViewConfig>().notNull(),
    kanbanFieldDefinitionId: text("kanban_field_definition_id"),
    kanbanWinOptionIds: text("kanban_win_option_ids", { mode: "json" }).$type<string[]>().notNull(),
    kanbanLossOptionIds: text("kanban_loss_option_ids", { mode: "json" }).$type<string[]>().notNull(),
    createdBy: text("created_by").notNull(),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (table) => [index("record_views_object_type").on(table.objectTypeId, table.position)],
);

/** CRM records; `deletedAt` marks a soft delete (gone from reads and lists). */
export const records = sqliteTable(
  "records",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id").notNull(),
    objectTypeId: text("object_type_id")
      .notNull()
      .references(() => objectTypes.id, { onDelete: "cascade" }),
    createdBy: text("created_by").notNull(),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
    deletedAt: integer("deleted_at"),
  },
  (table) => [index("records_object_type_created").on(table.objectTypeId, table.createdAt, table.id)],
);

/**
 * One row per stored value (several for multiselect and to-many relations, by `position`), typed
 * columns so that every field can be filtered and sorted through an index.
 */
export const recordValues = sqliteTable(
  "record_values",
  {
    recordId: text("record_id")
      .notNull()
      .references(() => records.id, { onDelete: "cascade" }),
    fieldDefinitionId: text("field_definition_id")
      .notNull()
      .references(() => fieldDefinitions.id, { onDelete: "cascade" }),
    position: integer("position").notNull(),
    valueText: text("value_text"),
    valueNumber: real("value_number"),
    targetRecordId: text("target_record_id"),
    /** Unique fields only: the value trimmed and case-folded; null once the record is deleted. */
    identityKey: text("identity_key"),
  },
  (table) => [
    primaryKey({ columns: [table.recordId, table.fieldDefinitionId, table.position] }),
    uniqueIndex("record_values_identity").on(table.fieldDefinitionId, table.identityKey),
    index("record_values_field_text").on(table.fieldDefinitionId, table.valueText, table.recordId),
    index("record_values_field_number").on(table.fieldDefinitionId, table.valueNumber, table.recordId),
    index("record_values_target").on(table.targetRecordId),
  ],
);

/** Inbox conversations (the inbox routes extend this); tasks link to them by id. */
export const conversations = sqliteTable(
  "conversations",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id").notNull(),
    channel: text("channel").notNull(),
    subject: text("subject").notNull(),
    lastMessageAtMs: integer("last_message_at_ms").notNull(),
    isClosed: integer("is_closed", { mode: "boolean" }).notNull(),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (table) => [index("conversations_workspace_last_message").on(table.workspaceId, table.lastMessageAtMs, table.id)],
);

export interface LinkedResource {
  resourceType: string;
  resourceId: string;
  label: string;
  channel: string;
}

/** Tasks on records; `source*` set when another resource manages the task; `deletedAt` = soft delete. */
export const tasks = sqliteTable(
  "tasks",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id").notNull(),
    recordId: text("record_id").notNull(),
    title: text("title").notNull(),
    status: text("status", { enum: ["todo", "in_progress", "done"] }).notNull(),
    descriptionHtml: text("description_html").notNull(),
    descriptionPlain: text("description_plain").notNull(),
    dueAt: integer("due_at"),
    assigneeUserIds: text("assignee_user_ids", { mode: "json" }).$type<string[]>().notNull(),
    linkedResources: text("linked_resources", { mode: "json" }).$type<LinkedResource[]>().notNull(),
    sourceType: text("source_type"),
    sourceId: text("source_id"),
    createdBy: text("created_by").notNull(),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
    deletedAt: integer("deleted_at"),
  },
  (table) => [
    index("tasks_record_created").on(table.recordId, table.createdAt, table.id),
    index("tasks_workspace_created").on(table.workspaceId, table.createdAt, table.id),
  ],
);

/** Notes on records; `deletedAt` = soft delete. */
export const notes = sqliteTable(
  "notes",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id").notNull(),
    recordId: text("record_id").notNull(),
    title: text("title").notNull(),
    contentHtml: text("content_html").notNull(),
    contentPlain: text("content_plain").notNull(),
    meetingId: text("meeting_id"),
    createdBy: text("created_by").notNull(),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
    deletedAt: integer("deleted_at"),
  },
  (table) => [index("notes_record_created").on(table.recordId, table.createdAt, table.id)],
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
