import { toBase64 } from "@crm/contracts";
import { createMimeMessage } from "mimetext/browser";

/** What an outgoing message says; every value has been validated (addresses, one-line subject) before. */
export interface OutgoingMime {
  from: { address: string; name: string };
  to: string[];
  cc: string[];
  subject: string;
  text: string;
  /** Sanitized HTML, sent as the alternative of the text part. */
  html: string | null;
  /** Our Message-ID, without angle brackets. */
  messageId: string;
  inReplyTo: string | null;
  references: string[];
  /** The recipient's own `List-Unsubscribe` link (https, signed token). */
  unsubscribeUrl: string;
}

/** A Message-ID that can stand in a header: stored ids came from mail of anyone, so anything else is left out. */
const isHeaderSafeId = (id: string) => /^[\x21-\x3b\x3d\x3f-\x7e]{1,900}$/.test(id);

/** Base64 of the UTF-8 bytes in lines of 76 (RFC 2045), so no body line comes near SMTP's limit whatever the text. */
const base64Lines = (value: string): string => (toBase64(new TextEncoder().encode(value)).match(/.{1,76}/g) ?? []).join("\r\n");

/**
 * The RFC 5322 message for one recipient: text part and (when there is HTML) its HTML alternative,
 * our Message-ID, threading headers on replies, and the one-click unsubscribe headers of RFC 8058.
 * mimetext encodes the subject and display names as RFC 2047 words, so no value can add a header.
 */
export function outgoingMime(mail: OutgoingMime): string {
  const message = createMimeMessage();
  message.setSender({ addr: mail.from.address, name: mail.from.name });
  message.setTo(mail.to.map((addr) => ({ addr })));
  if (mail.cc.length > 0) message.setCc(mail.cc.map((addr) => ({ addr })));
  message.setSubject(mail.subject);
  message.setHeader("Message-ID", `<${mail.messageId}>`);
  if (mail.inReplyTo && isHeaderSafeId(mail.inReplyTo)) message.setHeader("In-Reply-To", `<${mail.inReplyTo}>`);
  const references = mail.references.filter(isHeaderSafeId);
  // Folded one id a line: a long thread's References would otherwise pass the 998-character line limit.
  if (references.length > 0) message.setHeader("References", references.map((id) => `<${id}>`).join("\r\n "));
  message.setHeader("List-Unsubscribe", `<${mail.unsubscribeUrl}>`);
  message.setHeader("List-Unsubscribe-Post", "List-Unsubscribe=One-Click");
  message.addMessage({ contentType: "text/plain", encoding: "base64", data: base64Lines(mail.text) });
  if (mail.html) message.addMessage({ contentType: "text/html", encoding: "base64", data: base64Lines(mail.html) });
  return message.asRaw();
}
