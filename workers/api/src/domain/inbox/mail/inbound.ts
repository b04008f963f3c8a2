import { ApiError, sha256Hex } from "@crm/contracts";
import { newId } from "@crm/db";
import PostalMime, { type Address, type Email } from "postal-mime";
import type { Database } from "../../../database";
import { type IncomingAttachment, type StoredMessage, storeMessage } from "../store-message";
import { attachmentKey } from "./storage";

/** The largest message Email Routing delivers; the gateway refuses larger ones before they travel. */
export const maxInboundBytes = 25 * 1024 * 1024;
/** What a stored message keeps of its headers and attachments (the response schema's bounds). */
const maxAttachments = 100;
const maxReferences = 50;
const maxSubject = 998;
const maxName = 255;
const maxAddress = 254;

type MessageAddress = { email: string; name: string | null };

/** An unparsable message: the gateway turns the reason into the SMTP rejection (`setReject`). */
const unparsable = (reason: string) => new ApiError("invalid_request", `Rejected: ${reason}`);

const dotAtom = /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
const hostName = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;
const addressLiteral = /^\[(?:\d{1,3}\.){3}\d{1,3}\]$/;

/**
 * An address as the parser decoded it, written back as a valid RFC 5322 mailbox (lower-cased): a
 * local part that needs quoting (`"odd sender"@…`) is quoted again; one that cannot be written in
 * ASCII, or a host that is no host name, makes no address anyone can be answered at: null.
 */
function mailboxAddress(decoded: string): string | null {
  const address = decoded.trim().toLowerCase();
  const at = address.lastIndexOf("@");
  const local = address.slice(0, at);
  const host = address.slice(at + 1);
  if (at < 1 || local.length > 64 || !(hostName.test(host) || addressLiteral.test(host))) return null;
  const written = dotAtom.test(local)
    ? address
    : /^[\x20-\x7e]+$/.test(local)
      ? `"${local.replace(/["\\]/g, "\\$&")}"@${host}`
      : null;
  return written && written.length <= maxAddress ? written : null;
}

/** Mailboxes of an address list, groups flattened, without addresses no reply could reach. */
function addressesOf(list: Address[] | undefined): MessageAddress[] {
  return (list ?? [])
    .flatMap((entry) => (entry.group ? entry.group : [entry]))
    .flatMap((mailbox) => {
      const email = mailboxAddress(mailbox.address ?? "");
      return email ? [{ email, name: mailbox.name ? mailbox.name.slice(0, maxName) : null }] : [];
    });
}

/** Message-IDs in a header value (`<a@b> <c@d>`), or the bare value when it has no brackets. */
function messageIdsIn(value: string | undefined): string[] {
  if (!value) return [];
  const bracketed = value.match(/<[^<>\s]+>/g);
  return (bracketed ?? value.split(/\s+/))
    .map((id) => id.replace(/^<|>$/g, ""))
    .filter((id) => id.length > 0 && id.length <= 998);
}

/** Mail without a Message-ID still needs one to be stored once: the digest of its bytes, so a redelivery matches. */
const derivedMessageId = async (raw: ArrayBuffer) => `${await sha256Hex(raw)}@no-message-id.invalid`;

/** A content type as a header value may carry it (`type/subtype`), else the neutral one. */
const safeContentType = (value: string) =>
  /^[\w.+-]{1,100}\/[\w.+-]{1,100}$/.test(value) ? value.toLowerCase() : "application/octet-stream";

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is removed from a file name
const unsafeInFilename = /[\u0000-\u001f\u007f"]/g;

/** The file's own name: no path, no control characters, bounded; a name is always there to offer. */
function safeFilename(value: string | null, index: number): string {
  const name = (value ?? "").split(/[\\/]/).pop()?.replace(unsafeInFilename, "").trim() ?? "";
  return (name || `attachment-${index + 1}`).slice(0, maxName);
}

async function parse(raw: ArrayBuffer): Promise<Email> {
  try {
    return await PostalMime.parse(raw, { attachmentEncoding: "arraybuffer" });
  } catch {
    throw unparsable("the message could not be parsed as RFC 5322 mail");
  }
}

/** How a message reached the mailbox. */
export interface Arrival {
  /** The envelope's reverse-path was null (`MAIL FROM:<>`, RFC 5321): a report of the mail system. */
  nullSender: boolean;
  /**
   * True for everything Email Routing delivers. Only the demo seed hands in copies of the team's own
   * mail (From: the mailbox), stored as outbound; from outside such mail is inbound and marked.
   */
  fromOutside: boolean;
}

/**
 * The sender as stored. A bounce (null reverse-path, or a From without an address such as
 * `MAILER-DAEMON <>`) is from the mail system: its From address if it has one, else the receiving
 * domain's `mailer-daemon`. Any other message needs a From address.
 */
function senderOf(email: Email, mailbox: string, arrival: Arrival) {
  const [from] = addressesOf(email.from ? [email.from] : []);
  const withoutAddress = email.from !== undefined && !email.from.group && !email.from.address?.trim();
  if (!arrival.nullSender && !withoutAddress) {
    if (!from) throw unparsable("the message has no sender address (From)");
    return { from, senderKind: "person" as const };
  }
  const mailSystem = { email: `mailer-daemon@${mailbox.split("@")[1]}`, name: email.from?.name || "Mail Delivery System" };
  return { from: from ?? mailSystem, senderKind: "mail_system" as const };
}

/**
 * The region's inbound entry: a raw RFC 5322 message for one of its mailboxes. Parses it with
 * postal-mime, writes its attachments to the region's bucket, and stores it through `storeMessage`
 * (threading, once per Message-ID, attendees, events). Bounces are stored as from the mail system.
 * Unparsable mail is refused with the reason and nothing stays behind: attachments written for a
 * message that is not stored are deleted again.
 */
export async function receiveMail(
  db: Database,
  bucket: R2Bucket,
  mailbox: string,
  raw: ArrayBuffer,
  arrival: Arrival,
): Promise<StoredMessage> {
  if (raw.byteLength > maxInboundBytes) throw new ApiError("payload_too_large", "Rejected: the message is larger than 25 MiB");
  const email = await parse(raw);
  if (email.headers.length === 0) throw unparsable("the message has no header section");
  const address = mailbox.toLowerCase();
  const { from, senderKind } = senderOf(email, address, arrival);
  const messageId = messageIdsIn(email.messageId)[0] ?? (await derivedMessageId(raw));
  const sentAt = email.date ? Date.parse(email.date) : Number.NaN;

  const files = email.attachments.slice(0, maxAttachments).map((attachment, index) => {
    const id = newId("att");
    const content = attachment.content as ArrayBuffer;
    return {
      file: {
        id,
        filename: safeFilename(attachment.filename, index),
        contentType: safeContentType(attachment.mimeType),
        size: content.byteLength,
        r2Key: attachmentKey(id),
      } satisfies IncomingAttachment,
      content,
    };
  });
  const discard = () => Promise.all(files.map(({ file }) => bucket.delete(file.r2Key)));
  try {
    await Promise.all(
      files.map(({ file, content }) => bucket.put(file.r2Key, content, { httpMetadata: { contentType: file.contentType } })),
    );
    const stored = await storeMessage(db, {
      mailbox: address,
      direction: !arrival.fromOutside && from.email === address ? "outbound" : "inbound",
      senderKind,
      messageId,
      inReplyTo: messageIdsIn(email.inReplyTo)[0] ?? null,
      references: messageIdsIn(email.references).slice(-maxReferences),
      from,
      to: addressesOf(email.to),
      cc: addressesOf(email.cc),
      subject: (email.subject ?? "").slice(0, maxSubject),
      text: email.text ?? "",
      html: email.html ?? null,
      sentAtMs: Number.isFinite(sentAt) && sentAt > 0 ? sentAt : Date.now(),
      attachments: files.map(({ file }) => file),
    });
    // A repeat delivery stored nothing: its copies of the attachments are not needed.
    if (!stored.stored) await discard();
    return stored;
  } catch (error) {
    await discard();
    throw error;
  }
}
