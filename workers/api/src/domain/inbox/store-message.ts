import { ApiError, type Conversation, type Message } from "@crm/contracts";
import { newId, regional, runBatch } from "@crm/db";
import { eq, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Database } from "../../database";
import { plainTextOf, sanitizeHtml } from "../content/sanitize";
import { type EventSource, eventStatement } from "../events";
import { type Attendee, attendeeStatements, attendeesOf, peopleByEmail } from "./attendees";
import { mailboxOf } from "./mailboxes";
import { type ConversationRow, conversationResponse, type MessageRow, messageResponse } from "./response";
import { searchRowStatement } from "./search";
import { knownMessages, maxHeaderLength, threadingHeaders, threadOf } from "./threading";

const { attachments, conversations, mailboxes, messages, workspaces } = regional;

/** Stored text is capped like every text body of the API; longer mail keeps its beginning. */
export const maxStoredText = 100_000;
/** Sanitized HTML above this is not kept (D1 rows stop at 2 MB); the text part still is. */
export const maxStoredHtml = 500_000;
const snippetLength = 200;
/** Recipients kept per header: a mass mail's full list says nothing a conversation needs. */
const maxRecipients = 100;
/** RFC 5321 paths stop at 254 characters (header lines at 998, `maxHeaderLength`): longer values are not mail the inbox keeps as is. */
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
  const mailbox = await receivingMailbox(db, input.mailbox);
  const { workspaceId } = mailbox;
  const headers = storedHeaders(input);
  const thread = await threadOf(db, workspaceId, input.conversationId, headers);
  if ("repeated" in thread) return { ...thread.repeated, stored: false, conversationCreated: false };

  const now = Date.now();
  const content = messageContent(input);
  const senderKind = await senderKindOf(db, workspaceId, input, headers.from);
  // The mail system is no one to match to a person or to reply to: only the recipients attend.
  const attendees = attendeesOf(senderKind === "mail_system" ? null : headers.from, [...content.to, ...content.cc]);
  const people = await peopleByEmail(
    db,
    workspaceId,
    attendees.map((attendee) => attendee.email),
  );
  const conversationId = thread.conversationId ?? newId("conv", now);
  const message: MessageRow = {
    id: newId("msg", now),
    workspaceId,
    conversationId,
    direction: input.direction,
    fromAddress: headers.from,
    toAddresses: content.to,
    ccAddresses: content.cc,
    subject: headers.subject,
    text: content.text,
    html: content.html,
    sentAtMs: input.sentAtMs,
    senderKind,
    messageIdHeader: headers.messageIdHeader,
    inReplyTo: headers.inReplyTo,
    references: headers.references,
    createdAt: now,
  };
  const files = attachmentRows(input.attachments, message);
  const conversation = thread.conversationId
    ? { statements: [conversationUpdate(db, message, files.length > 0)], created: undefined }
    : newConversation(db, { message, mailbox: mailbox.address, attendees, people, hasAttachments: files.length > 0 });
  const source: EventSource = { organizationId: mailbox.organizationId, actor: actor ?? { type: "system", id: "inbox" } };
  const statements = [
    ...conversation.statements,
    ...messageStatements(db, message, files, attendees, people),
    ...eventStatements(db, source, message, files, conversation.created),
    ...(input.alongside ?? []),
  ];
  const repeated = await writeOnce(db, statements, workspaceId, headers.messageIdHeader);
  if (repeated) return { ...repeated, stored: false, conversationCreated: false };
  return { conversationId, messageId: message.id, stored: true, conversationCreated: conversation.created !== undefined };
}

/** The workspace mailbox the message arrived at or left from, with its workspace's organization; 404 when no workspace has it. */
async function receivingMailbox(db: Database, address: string) {
  const [mailbox] = await db
    .select({ address: mailboxes.address, workspaceId: mailboxes.workspaceId, organizationId: workspaces.organizationId })
    .from(mailboxes)
    .innerJoin(workspaces, eq(workspaces.id, mailboxes.workspaceId))
    .where(eq(mailboxes.address, address.trim().toLowerCase()))
    .limit(1);
  if (!mailbox) throw new ApiError("not_found", "Mailbox not found");
  return mailbox;
}

/** The headers as stored: threading, sender, subject; 400 without a usable Message-ID or sender address. */
function storedHeaders(input: IncomingMessage) {
  const threading = threadingHeaders(input.messageId, input.inReplyTo, input.references);
  const from = storedAddress(input.from);
  if (!isStorable(from)) throw new ApiError("invalid_request", "A message needs a sender address of at most 254 characters");
  return { ...threading, from, subject: headerText(input.subject).slice(0, maxHeaderLength) };
}

/** The text parts as stored: sanitized HTML, the text part (or the HTML's text), the recipients that can be kept. */
function messageContent(input: IncomingMessage) {
  const html = safeHtml(input.html);
  return {
    html,
    text: (input.text.trim() ? input.text : html ? plainTextOf(html) : "").slice(0, maxStoredText),
    to: input.to.map(storedAddress).filter(isStorable).slice(0, maxRecipients),
    cc: input.cc.map(storedAddress).filter(isStorable).slice(0, maxRecipients),
  };
}

const attachmentRows = (files: IncomingAttachment[], message: MessageRow) =>
  files.map((file) => ({
    ...file,
    filename: file.filename.slice(0, maxNameLength),
    contentType: file.contentType.slice(0, maxNameLength),
    workspaceId: message.workspaceId,
    messageId: message.id,
    createdAt: message.createdAt,
  }));

/**
 * A message joining its conversation. The inbox runs on its own clock (DESIGN.md section 8): the
 * message that arrived or was sent here last sets snippet, lifecycle and the conversation's place,
 * whatever its Date header says.
 */
function conversationUpdate(db: Database, message: MessageRow, hasAttachments: boolean): BatchItem<"sqlite"> {
  const now = message.createdAt;
  const isLatest = sql`${now} >= ${conversations.lastMessageAtMs}`;
  return db
    .update(conversations)
    .set({
      snippet: sql`case when ${isLatest} then ${snippetOf(message.text)} else ${conversations.snippet} end`,
      lifecycle: sql`case when ${isLatest} then ${lifecycleAfter(message)} else ${conversations.lifecycle} end`,
      lastMessageAtMs: sql`max(${conversations.lastMessageAtMs}, ${now})`,
      // A customer writing again reopens the conversation; sending does not.
      ...(message.direction === "inbound" ? { isClosed: false } : {}),
      ...(hasAttachments ? { hasAttachments: true } : {}),
      updatedAt: now,
    })
    .where(eq(conversations.id, message.conversationId));
}

const lifecycleAfter = (message: MessageRow) => (message.direction === "inbound" ? "awaiting_reply" : "replied");

/** A conversation started by its first message: its row, and the conversation as `conversation.created` shows it. */
function newConversation(
  db: Database,
  {
    message,
    mailbox,
    attendees,
    people,
    hasAttachments,
  }: { message: MessageRow; mailbox: string; attendees: Attendee[]; people: Map<string, string>; hasAttachments: boolean },
): { statements: BatchItem<"sqlite">[]; created: Conversation } {
  const { conversationId: id, workspaceId, createdAt: now } = message;
  const row: ConversationRow = {
    id,
    workspaceId,
    channel: "email",
    mailbox,
    subject: message.subject,
    snippet: snippetOf(message.text),
    lastMessageAtMs: now,
    isClosed: false,
    lifecycle: lifecycleAfter(message),
    hasAttachments,
    hasLinkedRecords: people.size > 0,
    createdAt: now,
    updatedAt: now,
  };
  const created = conversationResponse(row, {
    attendees: attendees.map((attendee) => ({
      conversationId: id,
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
    mailboxAddresses: new Set([mailbox]),
  });
  return { statements: [db.insert(conversations).values(row)], created };
}

/** The message, its attachments, its conversation's attendees and the search row. */
function messageStatements(
  db: Database,
  message: MessageRow,
  files: ReturnType<typeof attachmentRows>,
  attendees: Attendee[],
  people: Map<string, string>,
): BatchItem<"sqlite">[] {
  const { conversationId, workspaceId, subject, text } = message;
  return [
    db.insert(messages).values(message),
    ...files.map((file) => db.insert(attachments).values(file)),
    ...attendeeStatements(db, { id: conversationId, workspaceId }, attendees, people, message.createdAt),
    searchRowStatement(db, {
      conversationId,
      workspaceId,
      subject,
      text,
      people: [message.fromAddress, ...message.toAddresses, ...message.ccAddresses],
    }),
  ];
}

/** `conversation.created` for a new conversation, then `message.received` or `message.sent`. */
function eventStatements(
  db: Database,
  source: EventSource,
  message: MessageRow,
  files: ReturnType<typeof attachmentRows>,
  created: Conversation | undefined,
): BatchItem<"sqlite">[] {
  const { workspaceId, createdAt: now } = message;
  const data: Message = messageResponse(message, files);
  return [
    ...(created ? [eventStatement(db, source, { type: "conversation.created", workspaceId, data: created }, now)] : []),
    eventStatement(
      db,
      source,
      { type: message.direction === "inbound" ? "message.received" : "message.sent", workspaceId, data },
      now,
    ),
  ];
}

/**
 * Writes the message's batch. A concurrent delivery of the same Message-ID that won the race makes
 * the whole batch roll back on the UNIQUE index: its ids are answered instead; null once written.
 */
async function writeOnce(db: Database, statements: BatchItem<"sqlite">[], workspaceId: string, messageIdHeader: string) {
  try {
    await runBatch(db, statements);
    return null;
  } catch (error) {
    if (!isDuplicateMessage(error)) throw error;
    const winner = (await knownMessages(db, workspaceId, [messageIdHeader])).get(messageIdHeader);
    if (!winner) throw error;
    return winner;
  }
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
