-- Each recipient of an outbound message, recorded as soon as its copy left and before the next is
-- tried: a retried send (the same Idempotency-Key, the same draft) sends only to the others, with
-- the same Message-ID and time, and the message is stored once. Rows go with the batch that stores
-- the message; those of a send never retried are purged after a day, as idempotency records are.
CREATE TABLE outbound_sends (
  send_key TEXT NOT NULL,
  recipient TEXT NOT NULL,
  message_id TEXT NOT NULL,
  sent_at_ms INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (send_key, recipient)
);
CREATE INDEX outbound_sends_created ON outbound_sends (created_at);
