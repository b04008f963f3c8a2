import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/** Internal comments on conversations (migration 0017): never mailed; `seq` is the rowid `comment_search` reads by. */
export const conversationComments = sqliteTable(
  "conversation_comments",
  {
    seq: integer("seq").primaryKey(),
    id: text("id").notNull(),
    workspaceId: text("workspace_id").notNull(),
    conversationId: text("conversation_id").notNull(),
    authorId: text("author_id").notNull(),
    html: text("html").notNull(),
    text: text("text").notNull(),
    mentionUserIds: text("mention_user_ids", { mode: "json" }).$type<string[]>().notNull(),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (table) => [
    uniqueIndex("conversation_comments_id").on(table.id),
    index("conversation_comments_conversation").on(table.conversationId, table.createdAt, table.id),
  ],
);

/** The FTS5 index over comment texts (external content); only its column is named here, drizzle cannot declare it. */
export const commentSearch = sqliteTable("comment_search", { text: text("text") });

/** Tags of a workspace; `nameKey` (the name case-folded) is unique in it. */
export const inboxTags = sqliteTable(
  "inbox_tags",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id").notNull(),
    name: text("name").notNull(),
    nameKey: text("name_key").notNull(),
    color: text("color").notNull(),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (table) => [uniqueIndex("inbox_tags_workspace_name").on(table.workspaceId, table.nameKey)],
);

/** The tags set on conversations. */
export const conversationTags = sqliteTable(
  "conversation_tags",
  {
    conversationId: text("conversation_id").notNull(),
    tagId: text("tag_id").notNull(),
    workspaceId: text("workspace_id").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.conversationId, table.tagId] }),
    index("conversation_tags_tag").on(table.tagId, table.conversationId),
  ],
);
