import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

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
  },
  (table) => [index("event_outbox_unqueued").on(table.queuedAt, table.createdAt)],
);
