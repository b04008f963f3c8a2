import { z } from "@hono/zod-openapi";
import { idSchema, integer, timestampMs } from "../ids";
import { nullableRef } from "../nullable-ref";
import { personSchema } from "../people";
import { outputText } from "../strings";

/** Shapes of the inbox resources (the reference's Conversation and Inbox view; DESIGN.md section 8). */

/** An e-mail address as the inbox shows it: RFC 5321 caps a path at 254 characters. */
export const emailAddress = z.string().max(254).openapi({ format: "email", example: "ada@example.com" });

export const conversationSchema = z
  .object({
    id: idSchema("conv"),
    workspaceId: idSchema("ws"),
    channel: z.enum(["email"]),
    mailbox: outputText(254).openapi({ description: "Address of the workspace mailbox the conversation belongs to" }),
    subject: outputText(998).openapi({ description: "Subject of the first message (RFC 5322 caps a line at 998)" }),
    lastMessageSnippet: outputText(200).openapi({
      description: "Start of the text of the message that arrived or was sent last",
    }),
    lastMessageAtMs: timestampMs.openapi({
      description:
        "When the latest message arrived or was sent here (the service's clock, never a sender's `Date` header): orders the inbox",
    }),
    isClosed: z.boolean(),
    lifecycle: z
      .enum(["awaiting_reply", "replied"])
      .openapi({ description: "`awaiting_reply` when the latest message came in, `replied` when it went out" }),
    hasAttachments: z.boolean(),
    hasLinkedRecords: z.boolean(),
    linkedRecordIds: z
      .array(idSchema("rec"))
      .max(100)
      .openapi({ description: "Records linked by hand and by attendee matching" }),
    attendees: z
      .array(
        z.object({
          id: outputText(254).openapi({ description: "The attendee's address: unique within the conversation" }),
          displayName: outputText(255).nullable(),
          handle: outputText(254),
          email: emailAddress,
          isSender: z.boolean().openapi({ description: "Whether the address sent a message of the conversation" }),
          isWorkspaceMember: z.boolean().openapi({ description: "Whether the address is a mailbox of the workspace" }),
          recordId: idSchema("rec").nullable().openapi({ description: "The person record matched by e-mail" }),
        }),
      )
      .max(100),
    assignees: z
      .array(personSchema)
      .max(50)
      .openapi({ description: "Members the conversation is assigned to, as the workspace's members directory shows them" }),
    tags: z
      .array(z.object({ id: idSchema("tag"), name: outputText(64), color: outputText(7) }))
      .max(50)
      .openapi({ description: "The workspace tags set on the conversation, by name" }),
    createdAt: timestampMs,
    updatedAt: timestampMs,
  })
  .openapi("Conversation");

export type Conversation = z.infer<typeof conversationSchema>;

const messageAddress = z.object({ email: emailAddress, name: outputText(255).nullable() }).openapi("MessageAddress");

export const messageSchema = z
  .object({
    id: idSchema("msg"),
    conversationId: idSchema("conv"),
    workspaceId: idSchema("ws"),
    direction: z.enum(["inbound", "outbound"]),
    senderKind: z.enum(["person", "mail_system", "own_mailbox_from_outside"]).openapi({
      description:
        "`mail_system`: a bounce or delivery report (null sender, or a `From` without an address), shown from the receiving domain's `mailer-daemon`; `own_mailbox_from_outside`: inbound mail whose `From` claims one of the workspace's own mailboxes (not the team's own: it came from outside); else `person`",
    }),
    from: messageAddress,
    to: z.array(messageAddress).max(100),
    cc: z.array(messageAddress).max(100),
    subject: outputText(998),
    text: outputText(100_000),
    html: outputText(500_000).nullable().openapi({ description: "Sanitized HTML; null when the message had none" }),
    sentAtMs: timestampMs.openapi({
      description: "The sender's `Date` header, as sent (the time of sending for mail sent here)",
    }),
    createdAt: timestampMs.openapi({
      description: "When the message arrived or was sent here: orders the conversation's messages",
    }),
    messageId: outputText(998).openapi({ description: "The `Message-ID` header, without angle brackets" }),
    inReplyTo: outputText(998).nullable(),
    references: z.array(outputText(998)).max(100),
    attachments: z
      .array(
        z.object({
          id: idSchema("att"),
          filename: outputText(255),
          contentType: outputText(255),
          size: integer(0, 26_214_400).openapi({ description: "Bytes" }),
        }),
      )
      .max(100),
  })
  .openapi("Message");

export type Message = z.infer<typeof messageSchema>;

export const draftSchema = z
  .object({
    conversationId: idSchema("conv"),
    text: outputText(100_000),
    html: outputText(100_000).optional().openapi({ description: "Sanitized HTML (e-mail conversations only)" }),
    to: z.array(emailAddress).max(100),
    cc: z.array(emailAddress).max(100),
    updatedAt: timestampMs,
  })
  .openapi("Draft");

export type Draft = z.infer<typeof draftSchema>;

export const inboxViewFilterSchema = z
  .object({
    isClosed: z.boolean().optional(),
    hasLinkedRecords: z.boolean().optional(),
    assigneeUserIds: z.array(idSchema("usr")).max(50).optional(),
    mailbox: emailAddress.optional(),
    q: z.string().max(200).optional(),
    tagIds: z.array(idSchema("tag")).max(50).optional().openapi({ description: "Conversations with any of these tags" }),
  })
  .strict();

export const inboxViewConfigSchema = z
  .object({
    filter: inboxViewFilterSchema,
    sorts: z
      .array(z.object({ field: z.enum(["lastMessageAtMs", "createdAt"]), direction: z.enum(["asc", "desc"]) }).strict())
      .max(2),
  })
  .openapi("InboxViewConfig");

export const inboxViewSchema = z
  .object({
    id: idSchema("ivw"),
    workspaceId: idSchema("ws"),
    name: outputText(),
    emoji: outputText(32).nullable(),
    isSystem: z.boolean(),
    systemViewKey: z.enum(["inbox", "assigned_to_me", "closed"]).nullable(),
    visibility: z.enum(["personal", "workspace", "restricted"]),
    memberUserIds: z.array(idSchema("usr")).max(100).openapi({ description: "Who besides the creator sees a restricted view" }),
    config: inboxViewConfigSchema,
    createdByUserId: idSchema("usr").nullable(),
    creator: nullableRef(personSchema).openapi({
      description: "Who created the view, as the members directory shows them; null for system views",
    }),
    createdAt: timestampMs,
    updatedAt: timestampMs,
  })
  .openapi("InboxView");

export type InboxView = z.infer<typeof inboxViewSchema>;
