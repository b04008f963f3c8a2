import { regional, rowsPerStatement } from "@crm/db";
import { and, eq, inArray, type SQL, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Database } from "../../database";
import { identityKeyOf } from "../records/values";

const { conversationAttendees, conversationRecords, conversations, fieldDefinitions, objectTypes, recordValues } = regional;

export interface Attendee {
  email: string;
  name: string | null;
  isSender: boolean;
}

/** The addresses of a message, each once (lower-cased), the sender first and marked; null when the mail system sent it. */
export function attendeesOf(
  from: { email: string; name: string | null } | null,
  recipients: { email: string; name: string | null }[],
): Attendee[] {
  const byEmail = new Map<string, Attendee>();
  const people = [
    ...(from ? [{ ...from, isSender: true }] : []),
    ...recipients.map((person) => ({ ...person, isSender: false })),
  ];
  for (const person of people) {
    const email = person.email.trim().toLowerCase();
    if (!email || byEmail.has(email)) continue;
    byEmail.set(email, { email, name: person.name, isSender: person.isSender });
  }
  return [...byEmail.values()];
}

/**
 * People records of the workspace whose `email` (the people type's identity key) is one of the
 * addresses, by address. Served by the identity index `(field, identity_key)`; deleted records have
 * no identity key, so they never match.
 */
export async function peopleByEmail(db: Database, workspaceId: string, emails: string[]): Promise<Map<string, string>> {
  if (emails.length === 0) return new Map();
  const [emailField] = await db
    .select({ id: fieldDefinitions.id })
    .from(fieldDefinitions)
    .innerJoin(objectTypes, eq(objectTypes.id, fieldDefinitions.objectTypeId))
    .where(and(eq(objectTypes.workspaceId, workspaceId), eq(objectTypes.slug, "people"), eq(fieldDefinitions.slug, "email")))
    .limit(1);
  if (!emailField) return new Map();
  const rows = await db
    .select({ recordId: recordValues.recordId, identityKey: recordValues.identityKey })
    .from(recordValues)
    .where(
      and(
        eq(recordValues.fieldDefinitionId, emailField.id),
        inArray(
          recordValues.identityKey,
          emails.map((email) => identityKeyOf(email)),
        ),
      ),
    );
  return new Map(rows.map((row) => [row.identityKey as string, row.recordId]));
}

/**
 * Adds a message's attendees to its conversation, linking matched people (source `attendee`).
 * An address seen before keeps its first name and match and becomes a sender once it sends.
 */
export function attendeeStatements(
  db: Database,
  conversation: { id: string; workspaceId: string },
  attendees: Attendee[],
  people: Map<string, string>,
  now: number,
): BatchItem<"sqlite">[] {
  const rows = attendees.map((attendee) => ({
    conversationId: conversation.id,
    email: attendee.email,
    workspaceId: conversation.workspaceId,
    displayName: attendee.name,
    isSender: attendee.isSender,
    recordId: people.get(attendee.email) ?? null,
    createdAt: now,
  }));
  const statements: BatchItem<"sqlite">[] = rowsPerStatement(rows, 7).map((chunk) =>
    db
      .insert(conversationAttendees)
      .values(chunk)
      .onConflictDoUpdate({
        target: [conversationAttendees.conversationId, conversationAttendees.email],
        set: {
          isSender: sql`max(${conversationAttendees.isSender}, excluded.is_sender)`,
          displayName: sql`coalesce(${conversationAttendees.displayName}, excluded.display_name)`,
          recordId: sql`coalesce(${conversationAttendees.recordId}, excluded.record_id)`,
        },
      }),
  );
  const links = [...new Set(people.values())].map((recordId) => ({
    conversationId: conversation.id,
    recordId,
    source: "attendee" as const,
    workspaceId: conversation.workspaceId,
    createdAt: now,
  }));
  if (links.length === 0) return statements;
  return [
    ...statements,
    ...rowsPerStatement(links, 5).map((chunk) => db.insert(conversationRecords).values(chunk).onConflictDoNothing()),
    db.update(conversations).set({ hasLinkedRecords: true }).where(eq(conversations.id, conversation.id)),
  ];
}

/** Keeps `hasLinkedRecords` equal to "some link exists", after links of the conversation changed. */
export function linkedFlagStatement(db: Database, conversationId: string): BatchItem<"sqlite"> {
  const anyLink: SQL = sql`exists (select 1 from ${conversationRecords} where ${conversationRecords.conversationId} = ${conversationId})`;
  return db.update(conversations).set({ hasLinkedRecords: anyLink }).where(eq(conversations.id, conversationId));
}
