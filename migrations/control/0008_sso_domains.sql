-- Which organization's SSO connection each domain belongs to: a user's e-mail domain must lead to one
-- identity provider, so a domain another organization claims is refused (409). Written in the same
-- batch as the connection, so two organizations pushing the same domain at once cannot both win.
CREATE TABLE sso_domains (
  domain TEXT PRIMARY KEY NOT NULL,
  organization_id TEXT NOT NULL REFERENCES organizations (id)
);
CREATE INDEX sso_domains_organization ON sso_domains (organization_id);

-- Connections pushed before this table: where two organizations listed the same domain, the
-- connection stored first keeps it.
INSERT OR IGNORE INTO sso_domains (domain, organization_id)
  SELECT json_each.value, sso_connections.organization_id
  FROM sso_connections, json_each(sso_connections.domains)
  ORDER BY sso_connections.created_at;
