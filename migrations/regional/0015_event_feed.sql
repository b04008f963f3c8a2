-- The events feed (GET /events) and replays read a workspace's events in the order they were
-- written: by rowid, which SQLite assigns at insert time, so an event committed late never lands
-- behind a position a reader has passed. An index on workspace_id alone ends in the rowid, which
-- serves `workspace_id = ? and rowid > ? order by rowid`; the second finds where `sinceMs` starts.
CREATE INDEX event_outbox_feed ON event_outbox (workspace_id);
CREATE INDEX event_outbox_feed_since ON event_outbox (workspace_id, created_at);
