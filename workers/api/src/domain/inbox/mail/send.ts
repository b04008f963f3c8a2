import { EmailMessage } from "cloudflare:email";
import {
  ApiError,
  type Conversation,
  type Message,
  type operations,
  type Region,
  recipientAddress,
  signUnsubscribeLink,
} from "@crm/contracts";
import { regional } from "@crm/db";
import { and, desc, eq, inArray, lt } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { requireRole, requireWorkspace, type WorkspaceAccess } from "../../../access";
import { regionConfig } from "../../../config";
import type { Database } from "../../../database";
import type { RegionEnv, ServiceContext } from "../../../env";
import { parseIdempotencyKey } from "../../../idempotency";
import type { BodyOf } from "../../../inputs";
import { sanitizedContent } from "../../content/description";
import { loadConversation } from "../conversations";
import { mailboxOf } from "../mailboxes";
import { type ConversationRow, conversationResponses, type MessageRow, messageResponses } from "../response";
import { storeMessage } from "../store-message";
import { outgoingMime } from "./mime";
import { sentMimeKey } from "./storage";

const { conversations, mailboxes, messages, outboundSends, unsubscribedAddresses } = regional;

/** What sending needs of the region besides the request: its bindings and where its links point. */
export interface Outbox {
  sender: SendEmail;
  bucket: R2Bucket;
  region: Region;
  /** The gateway's public origin, for unsubscribe links. */
  publicOrigin: string;
  /** This region's context secret: unsubscribe tokens are signed with a key derived from it. */
  contextSecret: string;
}

export const outboxOf = (env: RegionEnv): Outbox => {
  const { region, publicOrigin, gatewayContextSecret } = regionConfig(env);
  return { sender: env.SEND_EMAIL, bucket: env.ATTACHMENTS, region, publicOrigin, contextSecret: gatewayContextSecret };
};

/** A message about to be sent, from a mailbox of its workspace. */
export interface Outgoing {
  mailbox: WorkspaceMailbox;
  workspaceId: string;
  to: string[];
  cc: string[];
  subject: string;
  text: string | undefined;
  html: string | undefined;
  inReplyTo: string | null;
  references: string[];
  conversationId?: string;
  /** Statements written in the same D1 batch as the message (a sent draft's deletion). */
  alongside?: BatchItem<"sqlite">[];
  /**
   * Names the send across retries (`retriedSendKey`, or a draft's id): the recipients it already
   * reached are recorded under it, and a retry sends only to the others.
   */
  sendKey?: string | undefined;
}

/** The send a client retries under the same `Idempotency-Key` resumes where the failed one stopped. */
export const retriedSendKey = (context: ServiceContext, idempotencyKey: string | undefined) =>
  idempotencyKey === undefined ? undefined : `key:${context.actor.credential.id}:${parseIdempotencyKey(idempotencyKey)}`;

type Sent = { conversation: Conversation; message: Message };

/** Sending needs a member (or an app or agent) who sees the whole inbox: record-scoped access only replies (see `reply`). */
export function requireSender(access: WorkspaceAccess, what: "compose" | "reply", hasLinkedRecords: boolean) {
  requireRole(access, "member");
  if (access.inboxAccess === "all") return;
  if (access.inboxAccess === "record_reply" && what === "reply" && hasLinkedRecords) return;
  throw new ApiError(
    "forbidden",
    access.inboxAccess === "record_reply"
      ? "Your inbox access allows replies only in conversations linked to a record"
      : "Your inbox access does not allow sending",
  );
}

/** `POST /inbox/conversations`: a new conversation started by a message sent from one of the workspace's mailboxes. */
export async function composeConversationOf(
  context: ServiceContext,
  outbox: Outbox,
  body: BodyOf<typeof operations.composeConversation>,
  sendKey?: string,
): Promise<Sent> {
  const { db, actor } = context;
  const { access } = await requireWorkspace(db, actor, body.workspaceId);
  requireSender(access, "compose", false);
  return send(context, outbox, {
    mailbox: await workspaceMailbox(db, body.workspaceId, body.mailbox, "mailbox"),
    workspaceId: body.workspaceId,
    to: body.to,
    cc: body.cc ?? [],
    subject: body.subject,
    text: body.text,
    html: body.html,
    inReplyTo: null,
    references: [],
    sendKey,
  });
}

export interface WorkspaceMailbox {
  address: string;
  name: string;
}

/** One of the workspace's mailboxes by address, or 400 naming `path` (the request field that named it). */
export async function workspaceMailbox(
  db: Database,
  workspaceId: string,
  address: string,
  path: string,
): Promise<WorkspaceMailbox> {
  const mailbox = await mailboxOf(db, workspaceId, address);
  if (!mailbox) {
    throw new ApiError("invalid_request", "The request is not valid; see details.", [
      { path, message: "Not a mailbox of the workspace" },
    ]);
  }
  return mailbox;
}

/** `POST /inbox/conversations/{id}/messages`: a reply from the conversation's mailbox, threaded to its latest message. */
export async function replyInConversation(
  context: ServiceContext,
  outbox: Outbox,
  conversationId: string,
  body: BodyOf<typeof operations.sendMessage>,
  sendKey?: string,
): Promise<Sent> {
  const { db } = context;
  // A conversation linked to no record does not exist for record-scoped members (404, as when they read it).
  const { row: conversation, access } = await loadConversation(context, conversationId);
  requireSender(access, "reply", conversation.hasLinkedRecords);
  const [mailbox] = await db
    .select({ address: mailboxes.address, name: mailboxes.name })
    .from(mailboxes)
    .where(and(eq(mailboxes.address, conversation.mailbox), eq(mailboxes.workspaceId, conversation.workspaceId)))
    .limit(1);
  if (!mailbox) throw new ApiError("invalid_request", "This conversation has no mailbox of the workspace to reply from");
  const [latest, latestInbound, ownMailboxes] = await Promise.all([
    latestMessage(db, conversation.id),
    latestMessage(db, conversation.id, "fromPerson"),
    db.select({ address: mailboxes.address }).from(mailboxes).where(eq(mailboxes.workspaceId, conversation.workspaceId)),
  ]);
  const to = body.to ?? defaultRecipients(latest, latestInbound, new Set(ownMailboxes.map((own) => own.address)));
  if (to.length === 0) {
    throw new ApiError("invalid_request", "The request is not valid; see details.", [
      { path: "to", message: "The conversation has no one to reply to: name the recipients" },
    ]);
  }
  return send(context, outbox, {
    mailbox,
    workspaceId: conversation.workspaceId,
    to,
    cc: body.cc ?? [],
    subject: body.subject ?? replySubject(conversation.subject),
    text: body.text,
    html: body.html,
    inReplyTo: latest?.messageIdHeader ?? null,
    // The parent's References plus the parent (RFC 5322 section 3.6.4), the newest 20.
    references: latest ? [...latest.references, latest.messageIdHeader].slice(-20) : [],
    conversationId: conversation.id,
    sendKey,
  });
}

const replySubject = (subject: string) => (/^re:/i.test(subject.trim()) ? subject : `Re: ${subject}`).slice(0, 998);

/** The latest message here (by arrival, never its Date header); `fromPerson`: the latest inbound one a person sent. */
async function latestMessage(db: Database, conversationId: string, only?: "fromPerson") {
  const [row] = await db
    .select()
    .from(messages)
    .where(
      and(
        eq(messages.conversationId, conversationId),
        only ? and(eq(messages.direction, "inbound"), eq(messages.senderKind, "person")) : undefined,
      ),
    )
    .orderBy(desc(messages.createdAt), desc(messages.id))
    .limit(1);
  return row;
}

/**
 * The sender of the latest inbound message a person sent, else whoever the latest message went to:
 * only addresses a message may be sent to (as `to` in a request), never one of the workspace's own
 * mailboxes, never the mail system (a bounce is answered by no one).
 */
function defaultRecipients(latest: MessageRow | undefined, latestInbound: MessageRow | undefined, ownMailboxes: Set<string>) {
  const candidates = latestInbound ? [latestInbound.fromAddress] : (latest?.toAddresses ?? []);
  return [...new Set(candidates.map((address) => address.email.toLowerCase()))].filter(
    (address) => !ownMailboxes.has(address) && recipientAddress.safeParse(address).success,
  );
}

/**
 * Sends one message: refuses unsubscribed recipients before anything goes out, sends one MIME
 * message per recipient (each with its own unsubscribe link, all with our Message-ID), stores the
 * message once through `storeMessage` (outbound, `message.sent`), and keeps each raw MIME in R2.
 *
 * Invariant: under a `sendKey`, every recipient a copy left for has its `outbound_sends` row before
 * the next recipient is tried, and the rows go in the batch that stores the message. A send that
 * stops anywhere (a refusing binding, a crash) therefore leaves exactly the reached recipients
 * recorded; its retry sends to the others only, with the same Message-ID, and stores it once.
 */
export async function send(context: ServiceContext, outbox: Outbox, outgoing: Outgoing): Promise<Sent> {
  const { db, actor } = context;
  const content = outgoing.html?.trim() ? sanitizedContent("html", outgoing.html, undefined) : null;
  const html = content?.html || null;
  const text = outgoing.text?.trim() ? outgoing.text : (content?.plain ?? "");
  if (!text.trim() && !html) {
    throw new ApiError("invalid_request", "The request is not valid; see details.", [
      { path: "text", message: "A message needs a text or an HTML body" },
    ]);
  }
  const to = unique(outgoing.to);
  const cc = unique(outgoing.cc).filter((address) => !to.includes(address));
  const recipients = [...to, ...cc];
  const unsubscribed = await db
    .select({ address: unsubscribedAddresses.address })
    .from(unsubscribedAddresses)
    .where(
      and(eq(unsubscribedAddresses.organizationId, actor.organizationId), inArray(unsubscribedAddresses.address, recipients)),
    );
  if (unsubscribed.length > 0) {
    throw new ApiError("recipient_unsubscribed", "A recipient unsubscribed from this organization's mail; nothing was sent", {
      addresses: unsubscribed.map((row) => row.address),
    });
  }

  const { sendKey } = outgoing;
  const reached = sendKey ? await db.select().from(outboundSends).where(eq(outboundSends.sendKey, sendKey)) : [];
  const domain = outgoing.mailbox.address.split("@")[1] as string;
  const messageId = reached[0]?.messageId ?? `${crypto.randomUUID()}@${domain}`;
  const sentAtMs = reached[0]?.sentAtMs ?? Date.now();
  const alreadySent = new Set(reached.map((row) => row.recipient));
  const raws = new Map<string, string>();
  for (const recipient of recipients) {
    const token = await signUnsubscribeLink(
      { organizationId: actor.organizationId, address: recipient, region: outbox.region },
      outbox.contextSecret,
      sentAtMs,
    );
    const raw = outgoingMime({
      from: outgoing.mailbox,
      to,
      cc,
      subject: outgoing.subject,
      text,
      html,
      messageId,
      inReplyTo: outgoing.inReplyTo,
      references: outgoing.references,
      unsubscribeUrl: `${outbox.publicOrigin}/api/v1/email/unsubscribe?token=${encodeURIComponent(token)}`,
    });
    raws.set(recipient, raw);
    if (alreadySent.has(recipient)) continue;
    // The local binding may answer with a Message-ID of its own; threading keeps ours, which is in the mail.
    await outbox.sender.send(new EmailMessage(outgoing.mailbox.address, recipient, raw));
    if (sendKey) {
      await db
        .insert(outboundSends)
        .values({ sendKey, recipient, messageId, sentAtMs, createdAt: Date.now() })
        .onConflictDoNothing();
    }
  }
  const alongside = [
    ...(outgoing.alongside ?? []),
    ...(sendKey ? [db.delete(outboundSends).where(eq(outboundSends.sendKey, sendKey))] : []),
  ];

  const stored = await storeMessage(
    db,
    {
      mailbox: outgoing.mailbox.address,
      direction: "outbound",
      messageId,
      inReplyTo: outgoing.inReplyTo,
      references: outgoing.references,
      from: { email: outgoing.mailbox.address, name: outgoing.mailbox.name },
      to: to.map((email) => ({ email, name: null })),
      cc: cc.map((email) => ({ email, name: null })),
      subject: outgoing.subject,
      text,
      html,
      sentAtMs,
      attachments: [],
      ...(outgoing.conversationId ? { conversationId: outgoing.conversationId } : {}),
      alongside,
    },
    actor.actor,
  );
  await Promise.all(
    [...raws].map(([recipient, raw]) => outbox.bucket.put(sentMimeKey(stored.messageId, recipient), raw, mimeMetadata)),
  );
  return sentResponse(context, outgoing.workspaceId, stored.conversationId, stored.messageId);
}

const mimeMetadata = { httpMetadata: { contentType: "message/rfc822" } };

const unique = (addresses: string[]) => [...new Set(addresses.map((address) => address.toLowerCase()))];

async function sentResponse(
  context: ServiceContext,
  workspaceId: string,
  conversationId: string,
  messageId: string,
): Promise<Sent> {
  const { db } = context;
  const [[conversation], [message]] = await Promise.all([
    db.select().from(conversations).where(eq(conversations.id, conversationId)),
    db.select().from(messages).where(eq(messages.id, messageId)),
  ]);
  const [conversationBody] = await conversationResponses(context, workspaceId, [conversation as ConversationRow]);
  const [messageBody] = await messageResponses(db, [message as MessageRow]);
  return { conversation: conversationBody as Conversation, message: messageBody as Message };
}

/** Drops the recipients recorded for sends never retried within a day (run by the cron trigger beside idempotency records). */
export async function purgeAbandonedSends(db: Database, now = Date.now()) {
  await db.delete(outboundSends).where(lt(outboundSends.createdAt, now - 24 * 60 * 60 * 1000));
}
