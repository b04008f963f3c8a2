-- An organization's single sign-on connection, pushed by the identity service through the signed
-- POST /api/v1/internal/sso/store (DESIGN.md section 12): one per organization, replaced on each push.
CREATE TABLE sso_connections (
  organization_id TEXT PRIMARY KEY NOT NULL REFERENCES organizations (id),
  protocol TEXT NOT NULL,
  -- JSON array of lower-case domain names.
  domains TEXT NOT NULL,
  -- SAML: the identity provider's metadata document; OIDC: the issuer. The other is null.
  metadata_url TEXT,
  issuer TEXT,
  enforced INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);

-- Each push's nonce, accepted once: written in the same batch as the connection, so a replay (also a
-- concurrent one) fails on the primary key and stores nothing. Kept past the signature's tolerance,
-- pruned by later pushes.
CREATE TABLE sso_store_nonces (
  nonce TEXT PRIMARY KEY NOT NULL,
  expires_at INTEGER NOT NULL
);
CREATE INDEX sso_store_nonces_expiry ON sso_store_nonces (expires_at);
