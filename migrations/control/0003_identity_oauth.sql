-- Identity (issue 12): console passwords and sessions, and the OAuth 2.1 server's clients,
-- installations, grants, codes, refresh tokens and signing keys. Secrets are stored as hashes only.
ALTER TABLE users ADD COLUMN password_hash TEXT;

CREATE TABLE console_sessions (
  id TEXT PRIMARY KEY NOT NULL,
  token_hash TEXT NOT NULL UNIQUE,
  user_id TEXT NOT NULL REFERENCES users(id),
  organization_id TEXT REFERENCES organizations(id),
  created_at INTEGER NOT NULL,
  last_seen_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  revoked_at INTEGER
);
CREATE INDEX console_sessions_user ON console_sessions (user_id);

CREATE TABLE oauth_clients (
  id TEXT PRIMARY KEY NOT NULL,
  name TEXT NOT NULL,
  type TEXT NOT NULL CHECK (type IN ('confidential', 'public')),
  secret_hash TEXT,
  redirect_uris TEXT NOT NULL,
  grant_types TEXT NOT NULL,
  registered_via TEXT NOT NULL CHECK (registered_via IN ('dynamic', 'manual')),
  created_at INTEGER NOT NULL
);

CREATE TABLE oauth_app_installations (
  client_id TEXT NOT NULL REFERENCES oauth_clients(id),
  organization_id TEXT NOT NULL REFERENCES organizations(id),
  scopes TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (client_id, organization_id)
);

CREATE TABLE oauth_grants (
  id TEXT PRIMARY KEY NOT NULL,
  client_id TEXT NOT NULL REFERENCES oauth_clients(id),
  user_id TEXT REFERENCES users(id),
  organization_id TEXT REFERENCES organizations(id),
  scopes TEXT NOT NULL,
  resource TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  revoked_at INTEGER
);
CREATE INDEX oauth_grants_user ON oauth_grants (user_id);
CREATE INDEX oauth_grants_client ON oauth_grants (client_id);
CREATE INDEX oauth_grants_revoked_at ON oauth_grants (revoked_at);

CREATE TABLE oauth_authorization_codes (
  code_hash TEXT PRIMARY KEY NOT NULL,
  grant_id TEXT NOT NULL REFERENCES oauth_grants(id),
  redirect_uri TEXT NOT NULL,
  code_challenge TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  used_at INTEGER
);
CREATE INDEX oauth_authorization_codes_grant ON oauth_authorization_codes (grant_id);

CREATE TABLE oauth_refresh_tokens (
  token_hash TEXT PRIMARY KEY NOT NULL,
  grant_id TEXT NOT NULL REFERENCES oauth_grants(id),
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  used_at INTEGER,
  replaced_by TEXT
);
CREATE INDEX oauth_refresh_tokens_grant ON oauth_refresh_tokens (grant_id);

CREATE TABLE oauth_signing_keys (
  kid TEXT PRIMARY KEY NOT NULL,
  public_jwk TEXT NOT NULL,
  private_key_wrapped TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  retired_at INTEGER
);
