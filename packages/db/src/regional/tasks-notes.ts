import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

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
