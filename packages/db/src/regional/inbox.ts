import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/** The shared inbox of a workspace (DESIGN.md section 8). */

/** A shared address of a workspace; the control D1 maps the same address to the organization for routing. */
export const mailboxes = sqliteTable(
  "mailboxes",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id").notNull(),
    /** Lower-cased e-mail address, unique across every organization of the region. */
    address: text("address").notNull(),
    name: text("name").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (table) => [uniqueIndex("mailboxes_address").on(table.address), index("mailboxes_workspace").on(table.workspaceId)],
);

export const conversationLifecycles = ["awaiting_reply", "replied"] as const;

/**
 * Conversations; tasks link to them by id. `hasLinkedRecords` is kept with every link change, so
 * the filter and the record-scoped inbox access are served by an index.
 * Lists order by `(lastMessageAtMs desc, id desc)` (an inbox view may sort by creation instead); each
 * filter has an index ending in that order.
 */
export const conversations = sqliteTable(
  "conversations",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id").notNull(),
    channel: text("channel").notNull(),
    /** Address of the workspace mailbox the conversation belongs to. */
    mailbox: text("mailbox").notNull().default(""),
    subject: text("subject").notNull(),
    snippet: text("snippet").notNull().default(""),
    lastMessageAtMs: integer("last_message_at_ms").notNull(),
    isClosed: integer("is_closed", { mode: "boolean" }).notNull(),
    /** Whose turn it is: the last message came in (`awaiting_reply`) or went out (`replied`). */
    lifecycle: text("lifecycle", { enum: conversationLifecycles }).notNull().default("awaiting_reply"),
    hasAttachments: integer("has_attachments", { mode: "boolean" }).notNull().default(false),
    hasLinkedRecords: integer("has_linked_records", { mode: "boolean" }).notNull().default(false),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (table) => [
    index("conversations_workspace_last_message").on(table.workspaceId, table.lastMessageAtMs, table.id),
    index("conversations_workspace_closed").on(table.workspaceId, table.isClosed, table.lastMessageAtMs, table.id),
    index("conversations_workspace_linked").on(table.workspaceId, table.hasLinkedRecords, table.lastMessageAtMs, table.id),
    index("conversations_workspace_mailbox").on(table.workspaceId, table.mailbox, table.lastMessageAtMs, table.id),
    index("conversations_workspace_created").on(table.workspaceId, table.createdAt, table.id),
  ],
);

export interface MessageAddress {
  email: string;
  name: string | null;
}

export const messageDirections = ["inbound", "outbound"] as const;
/**
 * Who a message is from, beyond its direction: a person (the usual case); the mail system (a bounce
 * or delivery report: null reverse-path or a From without an address); or mail from outside that
 * claims one of the workspace's own mailboxes as its sender (inbound, never taken for the team's own).
 */
export const messageSenderKinds = ["person", "mail_system", "own_mailbox_from_outside"] as const;
export type MessageSenderKind = (typeof messageSenderKinds)[number];

/**
 * Messages of a conversation. `(workspaceId, messageIdHeader)` is unique: a message delivered twice
 * (or twice at once) is stored once, and threading looks replies up by it.
 */
export const messages = sqliteTable(
  "messages",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id").notNull(),
    conversationId: text("conversation_id").notNull(),
    direction: text("direction", { enum: messageDirections }).notNull(),
    fromAddress: text("from_address", { mode: "json" }).$type<MessageAddress>().notNull(),
    toAddresses: text("to_addresses", { mode: "json" }).$type<MessageAddress[]>().notNull(),
    ccAddresses: text("cc_addresses", { mode: "json" }).$type<MessageAddress[]>().notNull(),
    subject: text("subject").notNull(),
    text: text("text").notNull(),
    /** Sanitized HTML; null when the message had none or the sanitizer refused it. */
    html: text("html"),
    /** The sender's `Date` header, as sent; never orders anything (createdAt is when it arrived or was sent here). */
    sentAtMs: integer("sent_at_ms").notNull(),
    senderKind: text("sender_kind", { enum: messageSenderKinds }).notNull().default("person"),
    /** The `Message-ID` header without angle brackets. */
    messageIdHeader: text("message_id_header").notNull(),
    inReplyTo: text("in_reply_to"),
    references: text("references", { mode: "json" }).$type<string[]>().notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (table) => [
    uniqueIndex("messages_workspace_message_id").on(table.workspaceId, table.messageIdHeader),
    index("messages_conversation_created").on(table.conversationId, table.createdAt, table.id),
  ],
);

/** Attachment metadata; the bytes are in the region's R2 bucket under `r2Key`. */
export const attachments = sqliteTable(
  "attachments",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id").notNull(),
    messageId: text("message_id").notNull(),
    filename: text("filename").notNull(),
    contentType: text("content_type").notNull(),
    size: integer("size").notNull(),
    r2Key: text("r2_key").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (table) => [index("attachments_message").on(table.messageId)],
);

/** Everyone who wrote or was addressed in a conversation, by lower-cased address; `recordId` = the matched person. */
export const conversationAttendees = sqliteTable(
  "conversation_attendees",
  {
    conversationId: text("conversation_id").notNull(),
    email: text("email").notNull(),
    workspaceId: text("workspace_id").notNull(),
    displayName: text("display_name"),
    /** Whether the address sent a message of the conversation (not only received one). */
    isSender: integer("is_sender", { mode: "boolean" }).notNull(),
    recordId: text("record_id"),
    createdAt: integer("created_at").notNull(),
  },
  (table) => [primaryKey({ columns: [table.conversationId, table.email] })],
);

export const recordLinkSources = ["manual", "attendee"] as const;

/** Records a conversation is linked to: by hand (`manual`, replaced by PATCH) or by attendee matching (`attendee`). */
export const conversationRecords = sqliteTable(
  "conversation_records",
  {
    conversationId: text("conversation_id").notNull(),
    recordId: text("record_id").notNull(),
    source: text("source", { enum: recordLinkSources }).notNull(),
    workspaceId: text("workspace_id").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.conversationId, table.recordId, table.source] }),
    index("conversation_records_record").on(table.recordId, table.conversationId),
  ],
);

export const conversationAssignees = sqliteTable(
  "conversation_assignees",
  {
    conversationId: text("conversation_id").notNull(),
    userId: text("user_id").notNull(),
    workspaceId: text("workspace_id").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.conversationId, table.userId] }),
    index("conversation_assignees_user").on(table.userId, table.conversationId),
  ],
);

/** One draft per user per conversation. */
export const drafts = sqliteTable(
  "drafts",
  {
    conversationId: text("conversation_id").notNull(),
    userId: text("user_id").notNull(),
    workspaceId: text("workspace_id").notNull(),
    text: text("text").notNull(),
    html: text("html"),
    toAddresses: text("to_addresses", { mode: "json" }).$type<string[]>().notNull(),
    ccAddresses: text("cc_addresses", { mode: "json" }).$type<string[]>().notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (table) => [primaryKey({ columns: [table.conversationId, table.userId] })],
);

/**
 * A draft of a new conversation (`/inbox/drafts`): the compose fields, kept before any conversation
 * exists. `sendingUntil` is the claim of a send in progress (two concurrent sends send it once).
 */
export const composeDrafts = sqliteTable(
  "compose_drafts",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id").notNull(),
    /** The user, app or agent who wrote it: the only one who sees it. */
    authorId: text("author_id").notNull(),
    mailbox: text("mailbox").notNull(),
    toAddresses: text("to_addresses", { mode: "json" }).$type<string[]>().notNull(),
    ccAddresses: text("cc_addresses", { mode: "json" }).$type<string[]>().notNull(),
    subject: text("subject"),
    text: text("text"),
    html: text("html"),
    sendingUntil: integer("sending_until"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (table) => [index("compose_drafts_author").on(table.authorId, table.workspaceId, table.createdAt, table.id)],
);

export const inboxViewVisibilities = ["personal", "workspace", "restricted"] as const;
export const systemInboxViewKeys = ["inbox", "assigned_to_me", "closed"] as const;

/** The filter and sorts of an inbox view (DESIGN.md section 8), validated by the views routes. */
export interface InboxViewConfig {
  filter: {
    isClosed?: boolean;
    hasLinkedRecords?: boolean;
    assigneeUserIds?: string[];
    mailbox?: string;
    q?: string;
    tagIds?: string[];
  };
  sorts: { field: "lastMessageAtMs" | "createdAt"; direction: "asc" | "desc" }[];
}

/** Saved inbox views; system ones (`systemViewKey` set) exist once per workspace and cannot change. */
export const inboxViews = sqliteTable(
  "inbox_views",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id").notNull(),
    name: text("name").notNull(),
    emoji: text("emoji"),
    visibility: text("visibility", { enum: inboxViewVisibilities }).notNull(),
    config: text("config", { mode: "json" }).$type<InboxViewConfig>().notNull(),
    isSystem: integer("is_system", { mode: "boolean" }).notNull(),
    systemViewKey: text("system_view_key", { enum: systemInboxViewKeys }),
    createdByUserId: text("created_by_user_id"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (table) => [
    index("inbox_views_workspace_created").on(table.workspaceId, table.createdAt, table.id),
    uniqueIndex("inbox_views_workspace_system_key").on(table.workspaceId, table.systemViewKey),
  ],
);

/** Who besides its creator sees a `restricted` inbox view. */
export const inboxViewMembers = sqliteTable(
  "inbox_view_members",
  {
    viewId: text("view_id").notNull(),
    userId: text("user_id").notNull(),
  },
  (table) => [primaryKey({ columns: [table.viewId, table.userId] }), index("inbox_view_members_user").on(table.userId)],
);

/** Addresses that used an unsubscribe link: the organization sends them nothing more. */
export const unsubscribedAddresses = sqliteTable(
  "unsubscribed_addresses",
  {
    organizationId: text("organization_id").notNull(),
    /** Lower-cased address. */
    address: text("address").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (table) => [primaryKey({ columns: [table.organizationId, table.address] })],
);

/**
 * The recipients a send already reached, one row each, written before the next recipient is tried
 * (`workers/api/src/domain/inbox/mail/send.ts`): a retry of the same send (`send_key`: its
 * Idempotency-Key, or its draft) skips them and reuses the Message-ID and time.
 */
export const outboundSends = sqliteTable(
  "outbound_sends",
  {
    sendKey: text("send_key").notNull(),
    /** Lower-cased address. */
    recipient: text("recipient").notNull(),
    /** The message's own Message-ID (without angle brackets), the same in every copy. */
    messageId: text("message_id").notNull(),
    sentAtMs: integer("sent_at_ms").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (table) => [primaryKey({ columns: [table.sendKey, table.recipient] }), index("outbound_sends_created").on(table.createdAt)],
);

/**
 * The FTS5 index behind `q`, one row per message. Declared here only so that rows are inserted with
 * typed queries in the batch that stores the message: drizzle can neither create a virtual table
 * (migration 0008 does, in SQL) nor express `MATCH` (`workers/api/src/domain/inbox/search.ts`).
 * FTS5 columns have no constraints, hence no `notNull`.
 */
export const inboxSearch = sqliteTable("inbox_search", {
  conversationId: text("conversation_id"),
  workspaceId: text("workspace_id"),
  subject: text("subject"),
  body: text("body"),
  attendees: text("attendees"),
});
