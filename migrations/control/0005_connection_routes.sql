-- Provider connection → organization, so the gateway routes a signed inbound webhook to the
-- organization's region without asking any region (DESIGN.md section 9).
CREATE TABLE connection_routes (
  connection_id TEXT PRIMARY KEY NOT NULL,
  organization_id TEXT NOT NULL REFERENCES organizations (id),
  created_at INTEGER NOT NULL
);
