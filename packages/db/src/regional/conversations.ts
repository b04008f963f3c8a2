import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

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
