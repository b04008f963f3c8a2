-- An outbox row that cannot be sent (an event over the size a Queue message holds) is set aside
-- with its reason instead of being claimed again and again: it never holds back the rows behind it.
ALTER TABLE event_outbox ADD COLUMN set_aside_at INTEGER;
ALTER TABLE event_outbox ADD COLUMN set_aside_reason TEXT;
