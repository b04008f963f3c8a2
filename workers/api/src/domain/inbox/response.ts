import type { Conversation, Message, Person } from "@crm/contracts";
import { regional } from "@crm/db";
import { eq, inArray } from "drizzle-orm";
import { peopleIn } from "../../directory";
import type { ServiceContext } from "../../env";
import { tagsOfConversations } from "./tags";

const { attachments, conversationAssignees, conversationAttendees, conversationRecords, mailboxes } = regional;

export type ConversationRow = typeof regional.conversations.$inferSelect;
export type MessageRow = typeof regional.messages.$inferSelect;
export type AttendeeRow = typeof regional.conversationAttendees.$inferSelect;
export type AttachmentRow = typeof regional.attachments.$inferSelect;

/** What a conversation response shows beyond its own row. */
export interface ConversationDetails {
  attendees: AttendeeRow[];
  /** As the members directory shows them, in assignment order. */
  assignees: Person[];
  linkedRecordIds: string[];
  tags: { id: string; name: string; color: string }[];
  /** Addresses of the workspace's mailboxes: attendees among them are the workspace itself. */
  mailboxAddresses: Set<string>;
}

export const conversationResponse = (row: ConversationRow, details: ConversationDetails): Conversation => ({
  id: row.id,
  workspaceId: row.workspaceId,
  channel: "email",
  mailbox: row.mailbox,
  subject: row.subject,
  lastMessageSnippet: row.snippet,
  lastMessageAtMs: row.lastMessageAtMs,
  isClosed: row.isClosed,
  lifecycle: row.lifecycle,
  hasAttachments: row.hasAttachments,
  hasLinkedRecords: row.hasLinkedRecords,
  linkedRecordIds: details.linkedRecordIds,
  // The response lists at most 100 attendees, the earliest first (a mass mail can have more).
  attendees: details.attendees.slice(0, 100).map((attendee) => ({
    id: attendee.email,
    displayName: attendee.displayName,
    handle: attendee.email,
    email: attendee.email,
    isSender: attendee.isSender,
    isWorkspaceMember: details.mailboxAddresses.has(attendee.email),
    recordId: attendee.recordId,
  })),
  assignees: details.assignees,
  tags: details.tags,
  createdAt: row.createdAt,
  updatedAt: row.updatedAt,
});

export const messageResponse = (row: MessageRow, files: AttachmentRow[]): Message => ({
  id: row.id,
  conversationId: row.conversationId,
  workspaceId: row.workspaceId,
  direction: row.direction,
  senderKind: row.senderKind,
  from: row.fromAddress,
  to: row.toAddresses,
  cc: row.ccAddresses,
  subject: row.subject,
  text: row.text,
  html: row.html,
  sentAtMs: row.sentAtMs,
  createdAt: row.createdAt,
  messageId: row.messageIdHeader,
  inReplyTo: row.inReplyTo,
  references: row.references,
  attachments: files.map((file) => ({ id: file.id, filename: file.filename, contentType: file.contentType, size: file.size })),
});

/**
 * The responses of some conversations of one workspace: attendees, assignees and links in one query
 * each, and the assignees' names and addresses in one directory call for them all.
 */
export async function conversationResponses(
  { db, actor, directory }: Pick<ServiceContext, "db" | "actor" | "directory">,
  workspaceId: string,
  rows: ConversationRow[],
): Promise<Conversation[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((row) => row.id);
  const [attendeeRows, assigneeRows, linkRows, mailboxRows, tagRows] = await Promise.all([
    db.select().from(conversationAttendees).where(inArray(conversationAttendees.conversationId, ids)),
    db.select().from(conversationAssignees).where(inArray(conversationAssignees.conversationId, ids)),
    db.select().from(conversationRecords).where(inArray(conversationRecords.conversationId, ids)),
    db.select({ address: mailboxes.address }).from(mailboxes).where(eq(mailboxes.workspaceId, workspaceId)),
    tagsOfConversations(db, ids),
  ]);
  const mailboxAddresses = new Set(mailboxRows.map((row) => row.address));
  const people = await directory.people(
    actor.organizationId,
    assigneeRows.map((assignee) => assignee.userId),
  );
  return rows.map((row) =>
    conversationResponse(row, {
      attendees: attendeeRows
        .filter((attendee) => attendee.conversationId === row.id)
        .sort((a, b) => a.createdAt - b.createdAt || a.email.localeCompare(b.email)),
      assignees: peopleIn(
        assigneeRows
          .filter((assignee) => assignee.conversationId === row.id)
          .sort((a, b) => a.createdAt - b.createdAt || a.userId.localeCompare(b.userId))
          .map((assignee) => assignee.userId),
        people,
      ),
      linkedRecordIds: [
        ...new Set(
          linkRows
            .filter((link) => link.conversationId === row.id)
            .sort((a, b) => a.createdAt - b.createdAt || a.recordId.localeCompare(b.recordId))
            .map((link) => link.recordId),
        ),
      ],
      tags: tagRows.filter((tag) => tag.conversationId === row.id).map(({ id, name, color }) => ({ id, name, color })),
      mailboxAddresses,
    }),
  );
}

/** The responses of some messages, with their attachments in one query. */
export async function messageResponses(db: ServiceContext["db"], rows: MessageRow[]): Promise<Message[]> {
  if (rows.length === 0) return [];
  const files = await db
    .select()
    .from(attachments)
    .where(
      inArray(
        attachments.messageId,
        rows.map((row) => row.id),
      ),
    );
  return rows.map((row) =>
    messageResponse(
      row,
      files.filter((file) => file.messageId === row.id).sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id)),
    ),
  );
}
