import { ApiError, type Conversation, type Message } from "@crm/contracts";
import { newId, regional, runBatch } from "@crm/db";
import { and, eq, inArray, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Database } from "../../database";
import { plainTextOf, sanitizeHtml } from "../content/sanitize";
import { type EventSource, eventStatement } from "../events";
import { attendeeStatements, attendeesOf, peopleByEmail } from "./attendees";
import { mailboxOf } from "./mailboxes";
import { type ConversationRow, conversationResponse, type MessageRow, messageResponse } from "./response";
import { searchRowStatement } from "./search";

const { attachments, conversations, mailboxes, messages, workspaces } = regional;

/** Stored text is capped like every text body of the API; longer mail keeps its beginning. */
export const maxStoredText = 100_000;
/** Sanitized HTML above this is not kept (D1 rows stop at 2 MB); the text part still is. */
export const maxStoredHtml = 500_000;
const snippetLength = 200;
/** Recipients kept per header: a mass mail's full list says nothing a conversation needs. */
const maxRecipients = 100;
/** RFC 5322 lines stop at 998 characters, RFC 5321 paths at 254: longer values are not mail the inbox keeps as is. */
const maxHeaderLength = 998;
const maxAddressLength = 254;
const maxNameLength = 255;

/** Control characters (C0, DEL, C1) and the Unicode line and paragraph separators: none belongs in a header value. */
const controlCharacters = /[\p{Cc}\u2028\u2029]/u;
const controlCharacterRuns = /[\p{Cc}\u2028\u2029]+/gu;

/**
 * A decoded header value (a subject, a display name) as stored: one line, each run of CR, LF or
 * other control characters a single space, so an encoded `\r\nBcc: …` can never become a header
 * again wherever the value is shown or written.
 */
export const headerText = (value: string) => value.replace(controlCharacterRuns, " ").trim();

/** An address as stored: trimmed, its display name one line cut to what a response can show. */
const storedAddress = (address: MessageAddress): MessageAddress => ({
  email: address.email.trim(),
  name: headerText(address.name ?? "").slice(0, maxNameLength) || null,
});
/** An address with a control character inside is no address anyone can be written to: it is not kept. */
const isStorable = (address: MessageAddress) =>
  address.email.length > 0 && address.email.length <= maxAddressLength && !controlCharacters.test(address.email);

type MessageAddress = MessageRow["fromAddress"];

export interface IncomingAttachment {
  /** `att_` id the caller chose, so the R2 object could be written under it first. */
  id: string;
  filename: string;
  contentType: string;
  size: number;
  r2Key: string;
}

/** A message to store, inbound (parsed from mail) or outbound (sent from the API). */
export interface IncomingMessage {
  /** Address of the workspace mailbox the message arrived at or left from. */
  mailbox: string;
  direction: "inbound" | "outbound";
  /** The `Message-ID` header; angle brackets are optional. */
  messageId: string;
  inReplyTo: string | null;
  references: string[];
  from: MessageAddress;
  to: MessageAddress[];
  cc: MessageAddress[];
  subject: string;
  text: string;
  /** As received: it is sanitized here. */
  html: string | null;
  /** The sender's `Date` header (the sending time for mail sent here): kept, never used to order. */
  sentAtMs: number;
  /** `person` unless told: a bounce is from the mail system; mail from outside may claim an own mailbox. */
  senderKind?: regional.MessageSenderKind;
  attachments: IncomingAttachment[];
  /** The conversation a reply sent from the API belongs to; otherwise threading decides. */
  conversationId?: string;
  /** Statements that must hold exactly when the message is stored: written in its batch (a sent draft's deletion). */
  alongside?: BatchItem<"sqlite">[];
}

export interface StoredMessage {
  conversationId: string;
  messageId: string;
  /** False when a message with this Message-ID was stored before: nothing was written. */
  stored: boolean;
  conversationCreated: boolean;
}

/** A Message-ID as stored: without angle brackets and surrounding space. */
export const bareMessageId = (value: string) => value.trim().replace(/^<+/, "").replace(/>+$/, "").trim();

/** Whether a failed batch broke the Message-ID index: the message is stored already (maybe by a concurrent delivery). */
const isDuplicateMessage = (error: unknown) =>
  String((error as Error)?.message ?? error).includes("messages.workspace_id, messages.message_id_header");

/** Sanitized HTML, or null when there is none or the sanitizer refuses it (the text part is kept). */
function safeHtml(html: string | null): string | null {
  if (!html) return null;
  try {
    const safe = sanitizeHtml(html);
    return safe.length > 0 && safe.length <= maxStoredHtml ? safe : null;
  } catch (error) {
    // Mail from anyone can be hostile: markup the sanitizer refuses (too deep, too large a tree) is dropped.
    if (error instanceof ApiError && error.code === "invalid_request") return null;
    throw error;
  }
}

const snippetOf = (text: string) => text.replace(/\s+/gu, " ").trim().slice(0, snippetLength);

/**
 * Stores a message in one D1 batch: threads it (an explicit conversation, else In-Reply-To, then
 * References, against the Message-IDs stored in the mailbox's workspace; else a new conversation),
 * writes it once per Message-ID (the UNIQUE index decides, so two concurrent deliveries store it
 * once), updates the conversation, the search index and the attendees, links attendees matched to
 * people records, and announces `conversation.created` and `message.received` | `message.sent`.
 * A repeat is a no-op that answers the ids stored first.
 */
export async function storeMessage(db: Database, input: IncomingMessage, actor?: EventSource["actor"]): Promise<StoredMessage> {
  const address = input.mailbox.trim().toLowerCase();
  const [mailbox] = await db
    .select({ address: mailboxes.address, workspaceId: mailboxes.workspaceId, organizationId: workspaces.organizationId })
    .from(mailboxes)
    .innerJoin(workspaces, eq(workspaces.id, mailboxes.workspaceId))
    .where(eq(mailboxes.address, address))
    .limit(1);
  if (!mailbox) throw new ApiError("not_found", "Mailbox not found");
  const { workspaceId } = mailbox;
  const messageIdHeader = bareMessageId(input.messageId);
  if (!messageIdHeader || messageIdHeader.length > maxHeaderLength) {
    throw new ApiError("invalid_request", "A message needs a Message-ID of at most 998 characters");
  }
  const from = storedAddress(input.from);
  if (!isStorable(from)) throw new ApiError("invalid_request", "A message needs a sender address of at most 254 characters");
  const related = (id: string) => id.length > 0 && id.length <= maxHeaderLength;
  const repliedTo = input.inReplyTo ? bareMessageId(input.inReplyTo) : "";
  const inReplyTo = related(repliedTo) ? repliedTo : null;
  // The newest references matter for threading; a response lists at most 100.
  const references = input.references.map(bareMessageId).filter(related).slice(-maxRecipients);
  const subject = headerText(input.subject).slice(0, maxHeaderLength);

  const known = await knownMessages(db, workspaceId, [messageIdHeader, ...(inReplyTo ? [inReplyTo] : []), ...references]);
  const existing = known.get(messageIdHeader);
  if (existing) return { ...existing, stored: false, conversationCreated: false };
  const threadedTo = input.conversationId
    ? await conversationOf(db, workspaceId, input.conversationId)
    : // The parent named by In-Reply-To, else the latest stored one of References (oldest first).
      ((inReplyTo ? known.get(inReplyTo)?.conversationId : undefined) ??
      [...references]
        .reverse()
        .map((id) => known.get(id)?.conversationId)
        .find(Boolean));

  const now = Date.now();
  const html = safeHtml(input.html);
  const text = (input.text.trim() ? input.text : html ? plainTextOf(html) : "").slice(0, maxStoredText);
  const to = input.to.map(storedAddress).filter(isStorable).slice(0, maxRecipients);
  const cc = input.cc.map(storedAddress).filter(isStorable).slice(0, maxRecipients);
  const senderKind = await senderKindOf(db, workspaceId, input, from);
  // The mail system is no one to match to a person or to reply to: only the recipients attend.
  const attendees = attendeesOf(senderKind === "mail_system" ? null : from, [...to, ...cc]);
  const people = await peopleByEmail(
    db,
    workspaceId,
    attendees.map((attendee) => attendee.email),
  );
  const conversationId = threadedTo ?? newId("conv", now);
  const message: MessageRow = {
    id: newId("msg", now),
    workspaceId,
    conversationId,
    direction: input.direction,
    fromAddress: from,
    toAddresses: to,
    ccAddresses: cc,
    subject,
    text,
    html,
    sentAtMs: input.sentAtMs,
    senderKind,
    messageIdHeader,
    inReplyTo,
    references,
    createdAt: now,
  };
  const lifecycle = input.direction === "inbound" ? "awaiting_reply" : "replied";
  const hasAttachments = input.attachments.length > 0;
  const source: EventSource = { organizationId: mailbox.organizationId, actor: actor ?? { type: "system", id: "inbox" } };
  const statements: BatchItem<"sqlite">[] = [];
  let created: Conversation | undefined;
  if (threadedTo) {
    // The inbox runs on its own clock (DESIGN.md section 8): the message that arrived or was sent
    // here last sets snippet, lifecycle and the conversation's place, whatever its Date header says.
    const isLatest = sql`${now} >= ${conversations.lastMessageAtMs}`;
    statements.push(
      db
        .update(conversations)
        .set({
          snippet: sql`case when ${isLatest} then ${snippetOf(text)} else ${conversations.snippet} end`,
          lifecycle: sql`case when ${isLatest} then ${lifecycle} else ${conversations.lifecycle} end`,
          lastMessageAtMs: sql`max(${conversations.lastMessageAtMs}, ${now})`,
          // A customer writing again reopens the conversation; sending does not.
          ...(input.direction === "inbound" ? { isClosed: false } : {}),
          ...(hasAttachments ? { hasAttachments: true } : {}),
          updatedAt: now,
        })
        .where(eq(conversations.id, conversationId)),
    );
  } else {
    const row: ConversationRow = {
      id: conversationId,
      workspaceId,
      channel: "email",
      mailbox: mailbox.address,
      subject,
      snippet: snippetOf(text),
      lastMessageAtMs: now,
      isClosed: false,
      lifecycle,
      hasAttachments,
      hasLinkedRecords: people.size > 0,
      createdAt: now,
      updatedAt: now,
    };
    statements.push(db.insert(conversations).values(row));
    created = conversationResponse(row, {
      attendees: attendees.map((attendee) => ({
        conversationId,
        email: attendee.email,
        workspaceId,
        displayName: attendee.name,
        isSender: attendee.isSender,
        recordId: people.get(attendee.email) ?? null,
        createdAt: now,
      })),
      assignees: [],
      tags: [],
      linkedRecordIds: [...new Set(people.values())],
      mailboxAddresses: new Set([mailbox.address]),
    });
  }
  const files = input.attachments.map((file) => ({
    ...file,
    filename: file.filename.slice(0, maxNameLength),
    contentType: file.contentType.slice(0, maxNameLength),
    workspaceId,
    messageId: message.id,
    createdAt: now,
  }));
  statements.push(
    db.insert(messages).values(message),
    ...files.map((file) => db.insert(attachments).values(file)),
    ...attendeeStatements(db, { id: conversationId, workspaceId }, attendees, people, now),
    searchRowStatement(db, {
      conversationId,
      workspaceId,
      subject,
      text,
      people: [from, ...to, ...cc],
    }),
  );
  if (created) statements.push(eventStatement(db, source, { type: "conversation.created", workspaceId, data: created }, now));
  const data: Message = messageResponse(message, files);
  statements.push(
    eventStatement(
      db,
      source,
      { type: input.direction === "inbound" ? "message.received" : "message.sent", workspaceId, data },
      now,
    ),
  );

  statements.push(...(input.alongside ?? []));
  try {
    await runBatch(db, statements);
  } catch (error) {
    if (!isDuplicateMessage(error)) throw error;
    // Another delivery of the same message won the race; the whole batch rolled back.
    const winner = (await knownMessages(db, workspaceId, [messageIdHeader])).get(messageIdHeader);
    if (!winner) throw error;
    return { ...winner, stored: false, conversationCreated: false };
  }
  return { conversationId, messageId: message.id, stored: true, conversationCreated: created !== undefined };
}

/**
 * Mail from outside whose From is one of the workspace's own mailboxes is not the team's: it stays
 * inbound and says so (DESIGN.md section 8). Other senders are as the caller says.
 */
async function senderKindOf(
  db: Database,
  workspaceId: string,
  input: IncomingMessage,
  from: MessageAddress,
): Promise<regional.MessageSenderKind> {
  const told = input.senderKind ?? "person";
  if (input.direction !== "inbound" || told !== "person") return told;
  return (await mailboxOf(db, workspaceId, from.email)) ? "own_mailbox_from_outside" : "person";
}

/** Stored messages of the workspace among some Message-IDs: their ids and conversations, by Message-ID. */
async function knownMessages(db: Database, workspaceId: string, messageIds: string[]) {
  // The References of a long thread can be long; the newest ones (last) matter most, and D1 binds 100 parameters.
  const [own, ...related] = messageIds;
  const wanted = [...new Set([own as string, ...related.slice(-90)])];
  const rows = await db
    .select({ id: messages.id, conversationId: messages.conversationId, header: messages.messageIdHeader })
    .from(messages)
    .where(and(eq(messages.workspaceId, workspaceId), inArray(messages.messageIdHeader, wanted)));
  return new Map(rows.map((row) => [row.header, { messageId: row.id, conversationId: row.conversationId }]));
}

/** The conversation a reply names, in the mailbox's workspace. */
async function conversationOf(db: Database, workspaceId: string, conversationId: string): Promise<string> {
  const [row] = await db
    .select({ id: conversations.id })
    .from(conversations)
    .where(and(eq(conversations.id, conversationId), eq(conversations.workspaceId, workspaceId)))
    .limit(1);
  if (!row) throw new ApiError("not_found", "Conversation not found");
  return row.id;
}
