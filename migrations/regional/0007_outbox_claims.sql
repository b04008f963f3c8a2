-- Dispatchers claim outbox rows before sending them, so that concurrent requests do not send the
-- same events twice; a claim older than a minute without `queued_at` is taken to be abandoned.
ALTER TABLE event_outbox ADD COLUMN claimed_at INTEGER;
