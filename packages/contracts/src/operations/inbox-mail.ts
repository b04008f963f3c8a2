import { z } from "@hono/zod-openapi";
import { idSchema, pathId } from "../ids";
import { costUnits, defineOperation, jsonBody, jsonResponse, withoutCredential } from "../operation";
import { conversationSchema, messageSchema } from "./inbox-schemas";

/**
 * Real e-mail out of the shared inbox (compose, reply), attachments of stored messages, and the
 * public unsubscribe page every sent message links to (DESIGN.md sections 8 and 12).
 */

/**
 * An address a message goes to: a plain addr-spec (`name@example.com`), nothing that could end a
 * header or start another one — no line breaks, spaces, angle brackets, quotes, commas or semicolons.
 */
export const recipientAddress = z
  .string()
  .max(254)
  .regex(
    /^[^\s@<>()",;:\\[\]]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/,
    "Not an e-mail address (name@example.com, without display name, spaces or line breaks)",
  )
  .openapi({ format: "email", example: "ada@example.com" });

const recipients = (description: string) =>
  z
    .array(recipientAddress)
    .min(1)
    .max(50)
    .openapi({ description: `${description}; at most 50` });

/** No control character (C0, DEL, C1) nor line separator, spelled as ranges: a `u`-flag pattern would not survive into the document. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the pattern exists to refuse control characters.
const oneHeaderLine = /^[^\u0000-\u001f\u007f-\u009f\u2028\u2029]*$/;

/**
 * One header line: RFC 5322 caps a line at 998 characters, a CR or LF would start a header of the
 * sender's choosing, and no control character (NUL, TAB, DEL, C1) or line separator belongs in one.
 */
export const subjectLine = z
  .string()
  .trim()
  .min(1)
  .max(998)
  .regex(oneHeaderLine, "A subject is one line without control characters (no CR, LF, NUL, TAB, …)")
  .openapi({ example: "Your renewal" });

export const messageBody = {
  text: z.string().max(100_000).optional().openapi({ description: "Plain-text body; derived from `html` when absent" }),
  html: z
    .string()
    .max(100_000)
    .optional()
    .openapi({ description: "HTML body, sanitized before it is sent and stored (the text part is its alternative)" }),
};

/**
 * A message needs content: `text`, `html` or both, checked where the body is validated and declared
 * in the document (`anyOf` of the two `required`), so a generated client knows it before sending.
 */
export const textOrHtml = {
  check: (value: { text?: string | undefined; html?: string | undefined }) => Boolean(value.text?.trim() || value.html?.trim()),
  refusal: { path: ["text"], message: "Give `text`, `html` or both: a message needs content" },
  // Each branch names its property as well as requiring it: Ajv's strictRequired (and the
  // generators that follow it) refuses a `required` whose property its own schema does not declare.
  documented: {
    anyOf: (["text", "html"] as const).map((property) => ({
      // The property's schema is the object's own; the branch only names it (an empty schema).
      properties: { [property]: {} },
      required: [property],
    })),
  },
};

export const sentResponse = z.object({ conversation: conversationSchema, message: messageSchema });

export const sendingRules =
  "Sent through the Workers `send_email` binding as MIME (text and sanitized HTML alternative) with our `Message-ID` on the mailbox's domain, `List-Unsubscribe` (an https link with a signed 90-day token per recipient) and `List-Unsubscribe-Post: List-Unsubscribe=One-Click` (RFC 8058). One of `text` and `html` must have content. A recipient who used an unsubscribe link of the organization is refused with 409 `recipient_unsubscribed` and nothing is sent. Members and above with inbox access `all`";

export const composeConversation = defineOperation({
  operationId: "composeConversation",
  tag: "Inbox",
  summary: "Compose a new e-mail conversation",
  description: `Sends a new message from one of the workspace's mailboxes and starts a conversation with it. ${sendingRules}.`,
  scope: "inbox:send",
  costUnits: costUnits.write,
  mcpTool: "inbox_conversations_compose",
  mcpHints: { destructiveHint: true, openWorldHint: true },
  // Its draft is a draft of a new conversation (`POST /inbox/drafts`): the same fields, nothing sent.
  mcpSendMode: { draftTool: "inbox_compose_drafts_create" },
  method: "post",
  path: "/inbox/conversations",
  request: {
    body: jsonBody(
      z
        .object({
          workspaceId: idSchema("ws"),
          mailbox: recipientAddress.openapi({ description: "One of the workspace's mailbox addresses: the sender" }),
          to: recipients("Recipients"),
          cc: z.array(recipientAddress).max(50).optional().openapi({ description: "Copy recipients; at most 50" }),
          subject: subjectLine,
          ...messageBody,
        })
        .strict()
        .refine(textOrHtml.check, textOrHtml.refusal)
        .openapi("ComposeConversation", {
          ...textOrHtml.documented,
          example: {
            workspaceId: "ws_01jd5q0m4x8r2w3y6z7a9b",
            mailbox: "support@acme.example",
            to: ["ada@example.com"],
            subject: "Your renewal",
            text: "Hello Ada, your plan renews on 1 December.",
          },
        }),
    ),
  },
  responses: { 201: jsonResponse("The new conversation and the sent message", sentResponse) },
  errors: ["recipient_unsubscribed"],
});

export const sendMessage = defineOperation({
  operationId: "sendMessage",
  tag: "Inbox",
  summary: "Reply in a conversation",
  description: `Sends a reply from the conversation's mailbox, threaded with \`In-Reply-To\` and \`References\` to its latest message. \`to\` defaults to the sender of the latest inbound message, \`subject\` to "Re: " and the conversation's subject. ${sendingRules}; a member with inbox access \`record_reply\` replies only on conversations linked to a record, one with \`record_read\` not at all.`,
  scope: "inbox:send",
  costUnits: costUnits.write,
  mcpTool: "inbox_messages_send",
  mcpHints: { destructiveHint: true, openWorldHint: true },
  mcpSendMode: { draftTool: "inbox_drafts_save" },
  method: "post",
  path: "/inbox/conversations/{conversationId}/messages",
  request: {
    params: z.object({ conversationId: pathId("conversationId", "conv") }),
    body: jsonBody(
      z
        .object({
          to: recipients("Recipients").optional(),
          cc: z.array(recipientAddress).max(50).optional().openapi({ description: "Copy recipients; at most 50" }),
          subject: subjectLine.optional(),
          ...messageBody,
        })
        .strict()
        .refine(textOrHtml.check, textOrHtml.refusal)
        .openapi("SendMessage", { ...textOrHtml.documented, example: { text: "Thanks, the plan is 10 a seat." } }),
    ),
  },
  responses: { 201: jsonResponse("The conversation and the sent message", sentResponse) },
  errors: ["recipient_unsubscribed"],
});

export const getAttachment = defineOperation({
  operationId: "getAttachment",
  tag: "Inbox",
  summary: "Download an attachment",
  description:
    "Streams one attachment of a message with its content type and a `Content-Disposition: attachment` naming the file, after the same access checks as the message (record-scoped inbox access included).",
  scope: "inbox:read",
  costUnits: costUnits.read,
  mcpTool: "inbox_attachments_get",
  method: "get",
  path: "/inbox/messages/{messageId}/attachments/{attachmentId}",
  request: {
    params: z.object({
      messageId: pathId("messageId", "msg"),
      attachmentId: pathId("attachmentId", "att"),
    }),
  },
  responses: {
    200: {
      description: "The attachment's bytes, with its stored content type",
      content: {
        // Answered with the attachment's own stored type (`application/pdf`, `image/png`, …): any media type.
        "*/*": {
          schema: z.string().max(26_214_400).openapi({ format: "binary", description: "At most 25 MiB, as inbound mail" }),
        },
      },
    },
  },
});

const unsubscribeQuery = z
  .object({
    token: z
      .string()
      .min(1)
      .max(2048)
      .openapi({ description: "The signed token of the `List-Unsubscribe` link (90 days)", example: "eyJ…" }),
  })
  .strict();

const oneClick = z
  .object({ "List-Unsubscribe": z.literal("One-Click") })
  .strict()
  .openapi("UnsubscribeOneClick", { example: { "List-Unsubscribe": "One-Click" } });

const unsubscribePage = (description: string) => ({
  description,
  content: { "text/html": { schema: z.string().max(10_000).openapi({ example: "<!doctype html>…" }) } },
});

export const showUnsubscribe = defineOperation({
  operationId: "showUnsubscribe",
  tag: "Inbox",
  summary: "Unsubscribe page",
  description:
    "The page a recipient reaches from the `List-Unsubscribe` link: it names the address and asks for confirmation; it changes nothing (link scanners open such links). An invalid or expired token is 400.",
  ...withoutCredential,
  method: "get",
  path: "/email/unsubscribe",
  request: { query: unsubscribeQuery },
  responses: { 200: unsubscribePage("A confirmation page with a one-click form") },
});

export const confirmUnsubscribe = defineOperation({
  operationId: "confirmUnsubscribe",
  tag: "Inbox",
  summary: "Unsubscribe (one click)",
  description:
    "RFC 8058 one-click unsubscribe: the body `List-Unsubscribe=One-Click` (urlencoded or multipart, as mail clients and the confirmation page send it). The address stops receiving mail from the organization at once; the answer is 200 without a redirect, and a repeat changes nothing. An invalid or expired token is 400.",
  ...withoutCredential,
  method: "post",
  path: "/email/unsubscribe",
  request: {
    query: unsubscribeQuery,
    body: {
      required: true,
      content: {
        "application/x-www-form-urlencoded": { schema: oneClick },
        "multipart/form-data": { schema: oneClick },
      },
    },
  },
  responses: { 200: unsubscribePage("The address is unsubscribed") },
});
