-- Mailbox address → organization (and workspace), so the gateway's email() handler routes inbound
-- mail to the organization's region without asking any region.
CREATE TABLE mailboxes (
  address TEXT PRIMARY KEY NOT NULL,
  organization_id TEXT NOT NULL REFERENCES organizations (id),
  workspace_id TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE INDEX mailboxes_organization ON mailboxes (organization_id);
