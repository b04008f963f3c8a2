/** Every public API scope (DESIGN.md section 3). A credential holds a subset of these. */
export const scopes = [
  "crm:metadata:read",
  "crm:metadata:write",
  "crm:records:read",
  "crm:records:write",
  "tasks:read",
  "tasks:write",
  "notes:read",
  "notes:write",
  "inbox:read",
  "inbox:write",
  "inbox:send",
  "meetings:read",
  "webhooks:read",
  "webhooks:write",
  "integrations:read",
  "integrations:write",
  "usage:read",
  "events:read",
  "members:read",
] as const;

export type Scope = (typeof scopes)[number];

export const isScope = (value: string): value is Scope => (scopes as readonly string[]).includes(value);

export const readScopes = scopes.filter((scope) => scope.endsWith(":read"));

/**
 * What each scope lets an application do, in words: the OpenAPI document's OAuth scheme and the
 * consent page show these, so a person can tell what they are allowing.
 */
export const scopeDescriptions: Record<Scope, string> = {
  "crm:metadata:read": "See the CRM's object types, fields, options and record views",
  "crm:metadata:write": "Create, change and delete object types, fields, options and record views",
  "crm:records:read": "See CRM records and their field values",
  "crm:records:write": "Create, change and delete CRM records",
  "tasks:read": "See tasks",
  "tasks:write": "Create, change, complete and delete tasks",
  "notes:read": "See notes",
  "notes:write": "Create, change and delete notes",
  "inbox:read": "Read inbox conversations, messages and views",
  "inbox:write": "Manage inbox views and write drafts",
  "inbox:send": "Send messages from the shared inbox",
  "meetings:read": "See meetings and calls",
  "webhooks:read": "See webhook subscriptions and their deliveries",
  "webhooks:write":
    "Create, change and delete webhook subscriptions, and so receive the full content of the events they deliver (record values, task and note text, mail subjects and snippets), including events of the last 30 days through a replay",
  "integrations:read": "See the workspace's meeting-notes and calling provider connections",
  "integrations:write": "Connect and disconnect meeting-notes and calling providers and rotate their signing secrets",
  "usage:read": "See the organization's API usage and token costs",
  "events:read": "See the events of the last 30 days: what changed in records, tasks, notes, conversations and meetings",
  "members:read": "See the workspace's members, with their e-mail addresses, roles and inbox access",
};
