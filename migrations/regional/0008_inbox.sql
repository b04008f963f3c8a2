-- The shared inbox (DESIGN.md section 8): mailboxes, conversations extended from their task-link
-- form, messages stored once per Message-ID, attachments, attendees, record links, assignees,
-- drafts, inbox views, unsubscribed addresses, and the FTS5 index behind `q`.
CREATE TABLE mailboxes (
  id TEXT PRIMARY KEY NOT NULL,
  workspace_id TEXT NOT NULL,
  address TEXT NOT NULL,
  name TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE UNIQUE INDEX mailboxes_address ON mailboxes (address);
CREATE INDEX mailboxes_workspace ON mailboxes (workspace_id);

-- Existing conversations (created for task links) keep working: the new columns have defaults.
ALTER TABLE conversations ADD COLUMN mailbox TEXT NOT NULL DEFAULT '';
ALTER TABLE conversations ADD COLUMN snippet TEXT NOT NULL DEFAULT '';
ALTER TABLE conversations ADD COLUMN lifecycle TEXT NOT NULL DEFAULT 'awaiting_reply' CHECK (lifecycle IN ('awaiting_reply', 'replied'));
ALTER TABLE conversations ADD COLUMN has_attachments INTEGER NOT NULL DEFAULT 0;
ALTER TABLE conversations ADD COLUMN has_linked_records INTEGER NOT NULL DEFAULT 0;
CREATE INDEX conversations_workspace_closed ON conversations (workspace_id, is_closed, last_message_at_ms, id);
CREATE INDEX conversations_workspace_linked ON conversations (workspace_id, has_linked_records, last_message_at_ms, id);
CREATE INDEX conversations_workspace_mailbox ON conversations (workspace_id, mailbox, last_message_at_ms, id);

CREATE TABLE messages (
  id TEXT PRIMARY KEY NOT NULL,
  workspace_id TEXT NOT NULL,
  conversation_id TEXT NOT NULL,
  direction TEXT NOT NULL CHECK (direction IN ('inbound', 'outbound')),
  from_address TEXT NOT NULL,
  to_addresses TEXT NOT NULL,
  cc_addresses TEXT NOT NULL,
  subject TEXT NOT NULL,
  text TEXT NOT NULL,
  html TEXT,
  sent_at_ms INTEGER NOT NULL,
  message_id_header TEXT NOT NULL,
  in_reply_to TEXT,
  "references" TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
-- The guarantee that a message is stored once, also when two deliveries race.
CREATE UNIQUE INDEX messages_workspace_message_id ON messages (workspace_id, message_id_header);
CREATE INDEX messages_conversation_sent ON messages (conversation_id, sent_at_ms, id);

CREATE TABLE attachments (
  id TEXT PRIMARY KEY NOT NULL,
  workspace_id TEXT NOT NULL,
  message_id TEXT NOT NULL,
  filename TEXT NOT NULL,
  content_type TEXT NOT NULL,
  size INTEGER NOT NULL,
  r2_key TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE INDEX attachments_message ON attachments (message_id);

CREATE TABLE conversation_attendees (
  conversation_id TEXT NOT NULL,
  email TEXT NOT NULL,
  workspace_id TEXT NOT NULL,
  display_name TEXT,
  is_sender INTEGER NOT NULL,
  record_id TEXT,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (conversation_id, email)
);

CREATE TABLE conversation_records (
  conversation_id TEXT NOT NULL,
  record_id TEXT NOT NULL,
  source TEXT NOT NULL CHECK (source IN ('manual', 'attendee')),
  workspace_id TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (conversation_id, record_id, source)
);
CREATE INDEX conversation_records_record ON conversation_records (record_id, conversation_id);

CREATE TABLE conversation_assignees (
  conversation_id TEXT NOT NULL,
  user_id TEXT NOT NULL,
  workspace_id TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (conversation_id, user_id)
);
CREATE INDEX conversation_assignees_user ON conversation_assignees (user_id, conversation_id);

CREATE TABLE drafts (
  conversation_id TEXT NOT NULL,
  user_id TEXT NOT NULL,
  workspace_id TEXT NOT NULL,
  text TEXT NOT NULL,
  html TEXT,
  to_addresses TEXT NOT NULL,
  cc_addresses TEXT NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (conversation_id, user_id)
);

CREATE TABLE inbox_views (
  id TEXT PRIMARY KEY NOT NULL,
  workspace_id TEXT NOT NULL,
  name TEXT NOT NULL,
  emoji TEXT,
  visibility TEXT NOT NULL CHECK (visibility IN ('personal', 'workspace', 'restricted')),
  config TEXT NOT NULL,
  is_system INTEGER NOT NULL,
  system_view_key TEXT CHECK (system_view_key IN ('inbox', 'assigned_to_me', 'closed')),
  created_by_user_id TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX inbox_views_workspace_created ON inbox_views (workspace_id, created_at, id);
CREATE UNIQUE INDEX inbox_views_workspace_system_key ON inbox_views (workspace_id, system_view_key);

CREATE TABLE inbox_view_members (
  view_id TEXT NOT NULL,
  user_id TEXT NOT NULL,
  PRIMARY KEY (view_id, user_id)
);
CREATE INDEX inbox_view_members_user ON inbox_view_members (user_id);

CREATE TABLE unsubscribed_addresses (
  organization_id TEXT NOT NULL,
  address TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (organization_id, address)
);

-- Full-text search behind `GET /inbox/conversations?q=`: one row per message (its subject, text and
-- the names and addresses of its sender and recipients), written in the batch that stores the
-- message and never updated, so a conversation is found by any of its messages. Only the
-- conversation and workspace ids are carried (unindexed) to join back. Raw SQL: drizzle cannot
-- declare virtual tables; the queries are in workers/api/src/domain/inbox/search.ts.
CREATE VIRTUAL TABLE inbox_search USING fts5(
  conversation_id UNINDEXED,
  workspace_id UNINDEXED,
  subject,
  body,
  attendees,
  tokenize = 'unicode61 remove_diacritics 2'
);
