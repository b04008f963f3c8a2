-- Data plane of one region: workspaces, memberships, idempotency records.
CREATE TABLE workspaces (
  id TEXT PRIMARY KEY NOT NULL,
  organization_id TEXT NOT NULL,
  name TEXT NOT NULL,
  description TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX workspaces_org_created ON workspaces (organization_id, created_at, id);

CREATE TABLE workspace_members (
  workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  user_id TEXT NOT NULL,
  role TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'manager', 'member', 'viewer')),
  inbox_access TEXT NOT NULL CHECK (inbox_access IN ('all', 'record_read', 'record_reply')),
  created_at INTEGER NOT NULL,
  PRIMARY KEY (workspace_id, user_id)
);
CREATE INDEX workspace_members_user ON workspace_members (user_id);

CREATE TABLE idempotency_keys (
  organization_id TEXT NOT NULL,
  credential_id TEXT NOT NULL,
  key TEXT NOT NULL,
  request_hash TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('in_flight', 'completed')),
  response_status INTEGER,
  response_body TEXT,
  locked_until INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  PRIMARY KEY (organization_id, credential_id, key)
);
CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at);
