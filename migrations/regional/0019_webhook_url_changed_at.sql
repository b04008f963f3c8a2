-- When a subscription's `url` last changed (issue 38): a replay sends only what was written after it,
-- never an earlier event to a receiver that was not the one it went to.
ALTER TABLE webhooks ADD COLUMN url_changed_at integer;
