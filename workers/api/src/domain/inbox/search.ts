import { regional } from "@crm/db";
import { type SQL, sql } from "drizzle-orm";
import type { Database } from "../../env";

const { inboxSearch } = regional;

/**
 * The one module that speaks to `inbox_search`, the FTS5 table behind `q` (migration 0008). One row
 * per message: its subject, text and the names and addresses of everyone on it. The match is raw
 * SQL through drizzle's `sql` template, because drizzle's query builder has no `MATCH`.
 */

export interface SearchableMessage {
  conversationId: string;
  workspaceId: string;
  subject: string;
  text: string;
  people: { email: string; name: string | null }[];
}

/** The row that makes a message findable; runs in the batch that stores the message. */
export function searchRowStatement(db: Database, message: SearchableMessage) {
  const attendees = message.people.map((person) => (person.name ? `${person.name} ${person.email}` : person.email)).join(" ");
  return db.insert(inboxSearch).values({
    conversationId: message.conversationId,
    workspaceId: message.workspaceId,
    subject: message.subject,
    body: message.text,
    attendees,
  });
}

/**
 * A user's words as an FTS5 query: the runs of letters and digits (as the tokenizer splits text),
 * every one required, each as a prefix. Nothing the user types is read as query syntax. Null when
 * no word is left.
 */
export function matchExpression(q: string): string | null {
  const words = (q.match(/[\p{L}\p{N}]+/gu) ?? []).slice(0, 16);
  return words.length === 0 ? null : words.map((word) => `"${word}"*`).join(" ");
}

/** Condition on `conversations`: one of its messages matches. The FTS index answers it, never a scan. */
export function conversationMatches(conversationId: SQL | { getSQL(): SQL }, expression: string): SQL {
  return sql`${conversationId} in (select ${inboxSearch.conversationId} from ${inboxSearch} where ${inboxSearch} match ${expression})`;
}
