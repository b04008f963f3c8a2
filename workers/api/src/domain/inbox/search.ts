import { regional } from "@crm/db";
import { type SQL, sql } from "drizzle-orm";
import type { Database } from "../../database";

const { inboxSearch, commentSearch, conversationComments } = regional;

/**
 * The one module that speaks to the FTS5 tables behind `q`: `inbox_search` (migration 0008), one row
 * per message: its subject, text and the names and addresses of everyone on it; and `comment_search`
 * (migration 0017), the text of the team's comments, kept in step with them by triggers. The match is raw
 * SQL through drizzle's `sql` template, because drizzle's query builder has no `MATCH`.
 */

export interface SearchableMessage {
  conversationId: string;
  workspaceId: string;
  subject: string;
  text: string;
  people: { email: string; name: string | null }[];
}

/** The row that makes a message findable. */
export function searchRow(message: SearchableMessage): typeof inboxSearch.$inferInsert {
  const attendees = message.people.map((person) => (person.name ? `${person.name} ${person.email}` : person.email)).join(" ");
  return {
    conversationId: message.conversationId,
    workspaceId: message.workspaceId,
    subject: message.subject,
    body: message.text,
    attendees,
  };
}

/** Inserts a message's search row; runs in the batch that stores the message. */
export const searchRowStatement = (db: Database, message: SearchableMessage) => db.insert(inboxSearch).values(searchRow(message));

/**
 * A user's words as an FTS5 query. The input is split on whitespace into terms; a term holding `@`
 * or `.` (an address, a domain, a dotted name) becomes one phrase of its runs of letters and digits
 * (consecutive tokens, as the tokenizer splits text), so `ada@customer.example` matches only that
 * address and not every message with `example` in it, and reads no prefix, so FTS5 seeks in the
 * big doclists of common tokens (`example`) instead of merging every token that starts with them.
 * Every other run of letters and digits is its own required word, as a prefix. Only those runs
 * ever reach FTS5, each inside double quotes, so nothing the user types (quotes, `*`, `NEAR`, `-`,
 * parentheses, `column:`) is read as query syntax. At most 16 words; null when none is left.
 */
export function matchExpression(q: string): string | null {
  const parts: string[] = [];
  let words = 0;
  for (const term of q.split(/\s+/u)) {
    const tokens = term.match(/[\p{L}\p{N}]+/gu) ?? [];
    if (tokens.length === 0 || words >= 16) continue;
    const kept = tokens.slice(0, 16 - words);
    words += kept.length;
    if (/[@.]/u.test(term) && kept.length > 1) parts.push(`"${kept.join(" ")}"`);
    else parts.push(...kept.map((word) => `"${word}"*`));
  }
  return parts.length === 0 ? null : parts.join(" ");
}

/** The conversations with a comment matching `expression`, from the comments' FTS index. */
const commentedConversations = (expression: string) =>
  sql`select ${conversationComments.conversationId} from ${commentSearch} join ${conversationComments} on ${conversationComments.seq} = ${commentSearch}.rowid where ${commentSearch} match ${expression}`;

/** Condition on `conversations`: one of its messages or comments matches. The FTS indexes answer it, never a scan. */
export function conversationMatches(conversationId: SQL | { getSQL(): SQL }, expression: string): SQL {
  return sql`(${conversationId} in (select ${inboxSearch.conversationId} from ${inboxSearch} where ${inboxSearch} match ${expression}) or ${conversationId} in (${commentedConversations(expression)}))`;
}

/**
 * The workspace's conversations with a message or comment matching `expression`, from the FTS
 * indexes: a subquery of one `id` column.
 */
export const matchingConversations = (workspaceId: string, expression: string) =>
  sql`select ${inboxSearch.conversationId} as id from ${inboxSearch} where ${inboxSearch} match ${expression} and ${inboxSearch.workspaceId} = ${workspaceId}
      union ${commentedConversations(expression)} and ${conversationComments.workspaceId} = ${workspaceId}`;
