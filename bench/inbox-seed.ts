// Seeds the inbox benchmark: conversations and their messages written straight into a region's D1
// (through miniflare's D1 binding, from Node) in the shape the API writes them: the same drizzle
// tables, attendees, assignees, record links and one search row per message built by the domain's
// own `searchRowStatement`. Bundled by scripts/bench.mjs with esbuild; creating 300 000 messages
// through `storeMessage` one batch at a time would take the whole run.
import { regional } from "@crm/db";
import { getTableColumns, is, SQL, sql } from "drizzle-orm";
import { type DrizzleD1Database, drizzle } from "drizzle-orm/d1";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import { searchRow } from "../workers/api/src/domain/inbox/search";

type Database = DrizzleD1Database;

const { conversationAssignees, conversationAttendees, conversationRecords, conversations, inboxSearch, messages } = regional;

/**
 * Inserts rows as drizzle would (each value through its column's own driver mapping: JSON columns
 * as JSON text, booleans as 0/1), but all of them in one statement that reads a single JSON
 * parameter. D1 binds at most 100 parameters per statement, which is why the API inserts a few rows
 * per statement; at 400 000 rows, statements would be the whole cost of the seed.
 */
function bulkInsert(db: Database, table: SQLiteTable, rows: Record<string, unknown>[]) {
  const columns = Object.entries(getTableColumns(table));
  // A value left out takes its column's default, as drizzle's insert would (`messages.sender_kind`
  // is NOT NULL with a default since migration 0014: a null there stopped the seed).
  const values = rows.map((row) =>
    columns.map(([key, column]) => {
      const value = row[key] === undefined && column.hasDefault && !is(column.default, SQL) ? column.default : row[key];
      return value === undefined || value === null ? null : column.mapToDriverValue(value);
    }),
  );
  const names = sql.join(
    columns.map(([, column]) => sql.identifier(column.name)),
    sql`, `,
  );
  const picks = sql.raw(columns.map((_, i) => `value ->> '$[${i}]'`).join(", "));
  return db.run(sql`insert into ${table} (${names}) select ${picks} from json_each(${JSON.stringify(values)})`);
}

// Words the texts are made of; `refund` is in one conversation of 100, so `q=refund` has 1 000
// matches among 100 000 conversations: a search that returns a full page without matching everything.
const words = ["order", "delivery", "invoice", "pricing", "upgrade", "account", "password", "shipping", "contract", "renewal"];
const textOf = (n: number, m: number) =>
  `Hello, a question about my ${words[n % words.length]} ${n}, message ${m}. ${n % 100 === 0 ? "I would like a refund." : "Thanks in advance."}`;

/** Statements for conversations `from` to `to` (exclusive), all messages included. */
function chunkStatements(db: Database, seed: InboxSeed, from: number, to: number, base: number) {
  const conversationRows: (typeof conversations.$inferInsert)[] = [];
  const messageRows: (typeof messages.$inferInsert)[] = [];
  const attendeeRows: (typeof conversationAttendees.$inferInsert)[] = [];
  const assigneeRows: (typeof conversationAssignees.$inferInsert)[] = [];
  const linkRows: (typeof conversationRecords.$inferInsert)[] = [];
  const searchRows: (typeof inboxSearch.$inferInsert)[] = [];
  const { workspaceId, mailbox } = seed;
  for (let n = from; n < to; n++) {
    const id = `conv_bench${String(n).padStart(8, "0")}`;
    const customer = { email: `customer${n % 5000}@bench.example`, name: `Customer ${n % 5000}` };
    const subject = `Question about ${words[n % words.length]} ${n}`;
    const createdAt = base + n * 60_000;
    let lastMessageAtMs = createdAt;
    for (let m = 0; m < seed.messagesPerConversation; m++) {
      const inbound = m % 2 === 0;
      const [from, recipient] = inbound ? [customer, { email: mailbox, name: null }] : [{ email: mailbox, name: null }, customer];
      lastMessageAtMs = createdAt + m * 3_600_000;
      const text = textOf(n, m);
      messageRows.push({
        id: `msg_bench${String(n).padStart(8, "0")}${m}`,
        workspaceId,
        conversationId: id,
        direction: inbound ? "inbound" : "outbound",
        fromAddress: from,
        toAddresses: [recipient],
        ccAddresses: [],
        subject: m === 0 ? subject : `Re: ${subject}`,
        text,
        html: null,
        sentAtMs: lastMessageAtMs,
        senderKind: "person",
        messageIdHeader: `bench-${n}-${m}@bench.example`,
        inReplyTo: m === 0 ? null : `bench-${n}-${m - 1}@bench.example`,
        references: Array.from({ length: m }, (_, i) => `bench-${n}-${i}@bench.example`),
        createdAt: lastMessageAtMs,
      });
      searchRows.push(searchRow({ conversationId: id, workspaceId, subject, text, people: [from, recipient] }));
    }
    const linked = n % 3 === 0;
    conversationRows.push({
      id,
      workspaceId,
      channel: "email",
      mailbox,
      subject,
      snippet: textOf(n, seed.messagesPerConversation - 1).slice(0, 200),
      lastMessageAtMs,
      isClosed: n % 5 === 0,
      lifecycle: seed.messagesPerConversation % 2 === 0 ? "replied" : "awaiting_reply",
      hasAttachments: false,
      hasLinkedRecords: linked,
      createdAt,
      updatedAt: lastMessageAtMs,
    });
    attendeeRows.push(
      { conversationId: id, email: customer.email, workspaceId, displayName: customer.name, isSender: true, createdAt },
      {
        conversationId: id,
        email: mailbox,
        workspaceId,
        displayName: null,
        isSender: seed.messagesPerConversation > 1,
        createdAt,
      },
    );
    if (n % 4 === 0) assigneeRows.push({ conversationId: id, userId: seed.assigneeUserId, workspaceId, createdAt });
    if (linked) linkRows.push({ conversationId: id, recordId: seed.recordId, source: "manual", workspaceId, createdAt });
  }
  return [
    bulkInsert(db, conversations, conversationRows),
    bulkInsert(db, messages, messageRows),
    bulkInsert(db, conversationAttendees, attendeeRows),
    bulkInsert(db, conversationAssignees, assigneeRows),
    bulkInsert(db, conversationRecords, linkRows),
    bulkInsert(db, inboxSearch, searchRows),
  ];
}

/** Writes the seed in batches of `chunk` conversations; answers how long it took. */
export async function seedInbox(d1: D1Database, seed: InboxSeed, chunk = 1000): Promise<number> {
  const db = drizzle(d1);
  const started = Date.now();
  // Conversations end before now, the newest last: the list's first page is the seed's tail.
  const base = started - seed.conversationCount * 60_000 - seed.messagesPerConversation * 3_600_000;
  for (let from = 0; from < seed.conversationCount; from += chunk) {
    for (const statement of chunkStatements(db, seed, from, Math.min(seed.conversationCount, from + chunk), base)) {
      await statement;
    }
  }
  return Date.now() - started;
}
