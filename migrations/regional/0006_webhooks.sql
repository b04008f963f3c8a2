-- Outbound webhook subscriptions and their delivery attempts (DESIGN.md section 10).
CREATE TABLE webhooks (
  id TEXT PRIMARY KEY NOT NULL,
  workspace_id TEXT NOT NULL,
  url TEXT NOT NULL,
  event_types TEXT NOT NULL,
  object_type_ids TEXT NOT NULL,
  description TEXT,
  is_active INTEGER NOT NULL,
  disabled_reason TEXT,
  secret TEXT NOT NULL,
  previous_secret TEXT,
  previous_secret_expires_at INTEGER,
  created_by TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX webhooks_workspace ON webhooks (workspace_id, created_at, id);

CREATE TABLE webhook_attempts (
  id TEXT PRIMARY KEY NOT NULL,
  delivery_id TEXT NOT NULL,
  attempt INTEGER NOT NULL,
  webhook_id TEXT NOT NULL,
  event_id TEXT NOT NULL,
  event_type TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('delivered', 'failed', 'retrying', 'rate_limited')),
  response_status INTEGER,
  error TEXT,
  duration_ms INTEGER,
  next_attempt_at INTEGER,
  created_at INTEGER NOT NULL
);
CREATE INDEX webhook_attempts_webhook ON webhook_attempts (webhook_id, created_at, id);
CREATE INDEX webhook_attempts_delivery ON webhook_attempts (delivery_id, created_at);
