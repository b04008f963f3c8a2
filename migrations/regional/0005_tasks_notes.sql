-- Conversations (extended by the inbox), tasks and notes on records.
CREATE TABLE conversations (
  id TEXT PRIMARY KEY NOT NULL,
  workspace_id TEXT NOT NULL,
  channel TEXT NOT NULL,
  subject TEXT NOT NULL,
  last_message_at_ms INTEGER NOT NULL,
  is_closed INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX conversations_workspace_last_message ON conversations (workspace_id, last_message_at_ms, id);

CREATE TABLE tasks (
  id TEXT PRIMARY KEY NOT NULL,
  workspace_id TEXT NOT NULL,
  record_id TEXT NOT NULL,
  title TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('todo', 'in_progress', 'done')),
  description_html TEXT NOT NULL,
  description_plain TEXT NOT NULL,
  due_at INTEGER,
  assignee_user_ids TEXT NOT NULL,
  linked_resources TEXT NOT NULL,
  source_type TEXT,
  source_id TEXT,
  created_by TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  deleted_at INTEGER
);
CREATE INDEX tasks_record_created ON tasks (record_id, created_at, id);
CREATE INDEX tasks_workspace_created ON tasks (workspace_id, created_at, id);

CREATE TABLE notes (
  id TEXT PRIMARY KEY NOT NULL,
  workspace_id TEXT NOT NULL,
  record_id TEXT NOT NULL,
  title TEXT NOT NULL,
  content_html TEXT NOT NULL,
  content_plain TEXT NOT NULL,
  meeting_id TEXT,
  created_by TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  deleted_at INTEGER
);
CREATE INDEX notes_record_created ON notes (record_id, created_at, id);
