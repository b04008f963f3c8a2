-- Drafts of new conversations (`/inbox/drafts`): a composed message saved before its conversation
-- exists. Only the author reads them; `sending_until` is the claim of a send in progress, so two
-- concurrent sends of one draft send it once.
CREATE TABLE compose_drafts (
  id TEXT PRIMARY KEY NOT NULL,
  workspace_id TEXT NOT NULL,
  author_id TEXT NOT NULL,
  mailbox TEXT NOT NULL,
  to_addresses TEXT NOT NULL,
  cc_addresses TEXT NOT NULL,
  subject TEXT,
  text TEXT,
  html TEXT,
  sending_until INTEGER,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
-- The author's drafts in a workspace, in creation order: the list's keyset.
CREATE INDEX compose_drafts_author ON compose_drafts (author_id, workspace_id, created_at, id);
