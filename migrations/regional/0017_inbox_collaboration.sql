-- Inbox collaboration (DESIGN.md section 14): internal comments on conversations, never mailed, and
-- workspace tags set on conversations.
CREATE TABLE conversation_comments (
  -- The rowid the FTS5 index below reads by: an INTEGER PRIMARY KEY never changes, unlike an implicit rowid.
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL,
  workspace_id TEXT NOT NULL,
  conversation_id TEXT NOT NULL,
  author_id TEXT NOT NULL,
  html TEXT NOT NULL,
  text TEXT NOT NULL,
  mention_user_ids TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE UNIQUE INDEX conversation_comments_id ON conversation_comments (id);
CREATE INDEX conversation_comments_conversation ON conversation_comments (conversation_id, created_at, id);

-- `q` on the conversation list finds a conversation by its comments' text too: external content,
-- kept in step by the triggers.
CREATE VIRTUAL TABLE comment_search USING fts5(
  text,
  content = 'conversation_comments',
  content_rowid = 'seq',
  tokenize = 'unicode61 remove_diacritics 2'
);
CREATE TRIGGER conversation_comments_inserted AFTER INSERT ON conversation_comments BEGIN
  INSERT INTO comment_search (rowid, text) VALUES (new.seq, new.text);
END;
CREATE TRIGGER conversation_comments_deleted AFTER DELETE ON conversation_comments BEGIN
  INSERT INTO comment_search (comment_search, rowid, text) VALUES ('delete', old.seq, old.text);
END;
CREATE TRIGGER conversation_comments_updated AFTER UPDATE OF text ON conversation_comments BEGIN
  INSERT INTO comment_search (comment_search, rowid, text) VALUES ('delete', old.seq, old.text);
  INSERT INTO comment_search (rowid, text) VALUES (new.seq, new.text);
END;

CREATE TABLE inbox_tags (
  id TEXT PRIMARY KEY NOT NULL,
  workspace_id TEXT NOT NULL,
  name TEXT NOT NULL,
  -- The name case-folded: names are unique in a workspace whatever their case.
  name_key TEXT NOT NULL,
  color TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE UNIQUE INDEX inbox_tags_workspace_name ON inbox_tags (workspace_id, name_key);

-- A conversation's tags; by tag, the conversations that carry it (the list's `tagIds` filter).
CREATE TABLE conversation_tags (
  conversation_id TEXT NOT NULL,
  tag_id TEXT NOT NULL,
  workspace_id TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (conversation_id, tag_id)
);
CREATE INDEX conversation_tags_tag ON conversation_tags (tag_id, conversation_id);
