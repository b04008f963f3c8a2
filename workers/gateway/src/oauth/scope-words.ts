import type { Scope } from "@crm/contracts";

/** What each part of a scope name covers, in words a person granting it understands. */
const areas: Record<string, string> = {
  "crm:metadata": "CRM object types, fields, options and record views",
  "crm:records": "CRM records (people, companies and other objects)",
  tasks: "tasks",
  notes: "notes",
  inbox: "shared inbox conversations, views and drafts",
  meetings: "meetings and calls",
  webhooks: "webhook subscriptions",
  integrations: "provider connections",
  usage: "token usage",
};

const verbs: Record<string, string> = {
  read: "See",
  write: "Create, change and delete",
};

/** `crm:records:read` → "See CRM records (…)"; `inbox:send` → "Send e-mail from shared inboxes". */
export function scopeInWords(scope: Scope): string {
  if (scope === "inbox:send") return "Send e-mail from shared inboxes";
  const separator = scope.lastIndexOf(":");
  const area = scope.slice(0, separator);
  const verb = scope.slice(separator + 1);
  return `${verbs[verb] ?? verb} ${areas[area] ?? area.replaceAll(":", " ")}`;
}
