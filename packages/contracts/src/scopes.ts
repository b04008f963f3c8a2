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
] as const;

export type Scope = (typeof scopes)[number];

export const isScope = (value: string): value is Scope => (scopes as readonly string[]).includes(value);

export const readScopes = scopes.filter((scope) => scope.endsWith(":read"));
