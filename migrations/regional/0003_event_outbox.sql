-- Transactional outbox of domain events (DESIGN.md section 10).
CREATE TABLE event_outbox (
  id TEXT PRIMARY KEY NOT NULL,
  organization_id TEXT NOT NULL,
  workspace_id TEXT NOT NULL,
  object_type_id TEXT,
  type TEXT NOT NULL,
  payload TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  queued_at INTEGER
);
CREATE INDEX event_outbox_unqueued ON event_outbox (queued_at, created_at);
