-- A key the console has just made (created or replaced), waiting for the one page view that shows it
-- (post/redirect/get). The browser holds a random reference in the page's URL; this row holds the
-- reference's SHA-256 and the key sealed with AES-GCM under a key derived from the reference, so the
-- control D1 alone cannot read it. Deleted by that one view (single use) or once expired (minutes).
CREATE TABLE console_key_reveals (
  id TEXT PRIMARY KEY NOT NULL,
  session_id TEXT NOT NULL REFERENCES console_sessions (id),
  api_key_id TEXT NOT NULL REFERENCES api_keys (id),
  replaced_key_id TEXT REFERENCES api_keys (id),
  sealed_key TEXT NOT NULL,
  expires_at INTEGER NOT NULL
);
CREATE INDEX console_key_reveals_expires_at ON console_key_reveals (expires_at);

-- The token-usage ledger per API key, UTC day and route, beside the organization's (token_usage):
-- the console's usage page filters by key. Written in the same batch as the organization's ledger.
CREATE TABLE token_usage_by_key (
  api_key_id TEXT NOT NULL REFERENCES api_keys (id),
  day TEXT NOT NULL,
  route TEXT NOT NULL,
  requests INTEGER NOT NULL,
  cost_units INTEGER NOT NULL,
  PRIMARY KEY (api_key_id, day, route)
);
