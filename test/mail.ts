import { env } from "cloudflare:test";
import { control } from "@crm/db";
import { drizzle } from "drizzle-orm/d1";
import PostalMime, { type Email } from "postal-mime";
import gateway from "../workers/gateway/src/index";
import { inboxWorkspace } from "./inbox";

/**
 * Mail in tests: raw RFC 5322 messages delivered through the gateway's real `email()` handler, and
 * the raw MIME of sent messages read back from the region's bucket and parsed with postal-mime.
 */

/** An inbox workspace whose mailbox the gateway can route mail to (the control D1 map has it). */
export async function mailWorkspace(region: "us" | "eu" = "us") {
  const workspace = await inboxWorkspace(region);
  await drizzle(env.CONTROL_DB).insert(control.mailboxes).values({
    address: workspace.mailbox,
    organizationId: workspace.organizationId,
    workspaceId: workspace.workspaceId,
    createdAt: Date.now(),
  });
  return workspace;
}

export interface RawMessage {
  from?: string;
  to: string;
  subject?: string;
  messageId?: string;
  inReplyTo?: string;
  references?: string;
  text?: string;
  /** The Date header; now by default (whole seconds, as mail clients write it). */
  date?: Date;
  attachment?: { filename: string; contentType: string; content: string };
}

/** A raw RFC 5322 message, as a mail client writes one (CRLF lines, base64 attachment in multipart/mixed). */
export function rawMessage(message: RawMessage): string {
  const headers = [
    `From: ${message.from ?? "Casey Customer <casey@customer.example>"}`,
    `To: ${message.to}`,
    `Subject: ${message.subject ?? "Question about pricing"}`,
    `Date: ${(message.date ?? new Date()).toUTCString()}`,
    ...(message.messageId === "" ? [] : [`Message-ID: ${message.messageId ?? `<${crypto.randomUUID()}@customer.example>`}`]),
    ...(message.inReplyTo ? [`In-Reply-To: ${message.inReplyTo}`] : []),
    ...(message.references ? [`References: ${message.references}`] : []),
    "MIME-Version: 1.0",
  ];
  const text = message.text ?? "Hello, what does the team plan cost?";
  if (!message.attachment) return [...headers, "Content-Type: text/plain; charset=utf-8", "", text, ""].join("\r\n");
  const { filename, contentType, content } = message.attachment;
  const encoded = (btoa(content).match(/.{1,76}/g) ?? []).join("\r\n");
  return [
    ...headers,
    'Content-Type: multipart/mixed; boundary="part"',
    "",
    "--part",
    "Content-Type: text/plain; charset=utf-8",
    "",
    text,
    "--part",
    // RFC 2231 parameters, as clients write names that are not plain ASCII.
    `Content-Type: ${contentType}; name*=UTF-8''${encodeURIComponent(filename)}`,
    `Content-Disposition: attachment; filename*=UTF-8''${encodeURIComponent(filename)}`,
    "Content-Transfer-Encoding: base64",
    "",
    encoded,
    "--part--",
    "",
  ].join("\r\n");
}

/** What the gateway's email() handler did with a delivered message. */
export interface Delivery {
  rejected: string | null;
}

/** Delivers a raw message to `to` through the gateway's real `email()` export, as Email Routing does. */
export async function deliver(raw: string | Uint8Array, to: string, from = "casey@customer.example"): Promise<Delivery> {
  const bytes = typeof raw === "string" ? new TextEncoder().encode(raw) : raw;
  const delivery: Delivery = { rejected: null };
  const message: ForwardableEmailMessage = {
    from,
    to,
    raw: new Blob([bytes]).stream(),
    rawSize: bytes.byteLength,
    headers: new Headers(),
    canBeForwarded: false,
    setReject: (reason: string) => {
      delivery.rejected = reason;
    },
    forward: () => Promise.reject(new Error("not forwarded in tests")),
    reply: () => Promise.reject(new Error("no replies in tests")),
  };
  await gateway.email(message, env);
  return delivery;
}

/** The raw MIME a recipient got for a sent message (kept in the region's bucket), parsed. */
export async function sentMime(
  messageId: string,
  recipient: string,
  region: "us" | "eu" = "us",
): Promise<Email & { raw: string }> {
  const bucket = { us: env.ATTACHMENTS_US, eu: env.ATTACHMENTS_EU }[region];
  const object = await bucket.get(`sent/${messageId}/${recipient}.eml`);
  if (!object) throw new Error(`no MIME kept for ${messageId} to ${recipient}`);
  const raw = await object.text();
  return { ...(await PostalMime.parse(raw)), raw };
}

/** A header of a parsed message, by its lower-case name. */
export const headerOf = (email: Email, name: string) => email.headers.find((header) => header.key === name)?.value;

/** The token of the `List-Unsubscribe` link of a sent message. */
export function unsubscribeToken(email: Email): string {
  const link = headerOf(email, "list-unsubscribe")?.match(/^<([^>]+)>$/)?.[1];
  if (!link) throw new Error("no List-Unsubscribe link");
  return new URL(link).searchParams.get("token") as string;
}
