-- The inbox runs on the service's own clock (DESIGN.md section 8): a conversation's
-- last_message_at_ms and the order of its messages follow when each message arrived or was sent
-- here (messages.created_at), never the sender's Date header (kept as sent_at_ms).
DROP INDEX messages_conversation_sent;
CREATE INDEX messages_conversation_created ON messages (conversation_id, created_at, id);
-- Conversations ordered by a Date header before: their last arrival instead.
UPDATE conversations
SET last_message_at_ms = (SELECT max(created_at) FROM messages WHERE messages.conversation_id = conversations.id)
WHERE EXISTS (SELECT 1 FROM messages WHERE messages.conversation_id = conversations.id);
-- Who a message is from beyond its direction: a person, the mail system (bounces), or mail from
-- outside claiming one of the workspace's own mailboxes.
ALTER TABLE messages ADD COLUMN sender_kind TEXT NOT NULL DEFAULT 'person';
-- The request that claimed an Idempotency-Key: a replay names it in Original-Request-Id.
ALTER TABLE idempotency_keys ADD COLUMN request_id TEXT;
