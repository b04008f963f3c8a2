-- Token-usage ledger: per organization, UTC day and route (method + path template).
CREATE TABLE token_usage (
  organization_id TEXT NOT NULL REFERENCES organizations(id),
  day TEXT NOT NULL,
  route TEXT NOT NULL,
  requests INTEGER NOT NULL,
  cost_units INTEGER NOT NULL,
  PRIMARY KEY (organization_id, day, route)
);
