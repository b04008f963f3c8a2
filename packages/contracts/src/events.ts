import { z } from "@hono/zod-openapi";
import type { Conversation, Message } from "./operations/inbox-schemas";
import type { Meeting } from "./operations/meetings";
import type { noteSchema } from "./operations/notes";
import type { recordSchema } from "./operations/records";
import type { taskSchema } from "./operations/tasks";

/** The 14 event types (DESIGN.md section 10); webhook subscriptions filter on them. */
export const eventTypes = [
  "record.created",
  "record.updated",
  "record.deleted",
  "task.created",
  "task.updated",
  "task.deleted",
  "note.created",
  "note.updated",
  "note.deleted",
  "conversation.created",
  "message.received",
  "message.sent",
  "meeting.updated",
  "meeting.transcript_ready",
] as const;

export type EventType = (typeof eventTypes)[number];

export const eventDescriptions: Record<EventType, string> = {
  "record.created": "A record was created",
  "record.updated": "A record changed; `changedFields` lists the field slugs",
  "record.deleted": "A record was deleted",
  "task.created": "A task was created on a record",
  "task.updated": "A task changed",
  "task.deleted": "A task was deleted",
  "note.created": "A note was created on a record",
  "note.updated": "A note changed",
  "note.deleted": "A note was deleted",
  "conversation.created": "A conversation started in the inbox",
  "message.received": "A message arrived in a conversation",
  "message.sent": "A message was sent from a conversation",
  "meeting.updated": "A meeting changed",
  "meeting.transcript_ready": "A meeting's transcript is available",
};

export const eventSchema = z
  .object({
    id: z.string().openapi({ example: "evt_01jd5q0m4x8r2w3y6z7a9b" }),
    type: z.enum(eventTypes),
    createdAt: z.number().int().openapi({ description: "Unix ms" }),
    organizationId: z.string(),
    workspaceId: z.string(),
    objectTypeId: z.string().optional(),
    actor: z.object({ type: z.enum(["user", "app", "agent", "system"]), id: z.string() }),
    data: z
      .record(z.string(), z.unknown())
      .openapi({ description: "The resource after the change; `changedFields` on updates." }),
  })
  .openapi("Event");

export type DomainEvent = z.infer<typeof eventSchema>;

type CrmRecord = z.infer<typeof recordSchema>;
type Task = z.infer<typeof taskSchema>;
type Note = z.infer<typeof noteSchema>;
/** Updates carry the resource after the change and the keys that changed (field slugs for records). */
type Changed<Resource> = Resource & { changedFields: string[] };

/**
 * What `data` holds for each event type, so that a producer cannot emit a shape its type does not
 * promise.
 */
export interface EventData {
  "record.created": CrmRecord;
  "record.updated": Changed<CrmRecord>;
  "record.deleted": { id: string; workspaceId: string; objectTypeId: string };
  "task.created": Task;
  "task.updated": Changed<Task>;
  "task.deleted": { id: string; workspaceId: string; recordId: string };
  "note.created": Note;
  "note.updated": Changed<Note>;
  "note.deleted": { id: string; workspaceId: string; recordId: string };
  "conversation.created": Conversation;
  "message.received": Message;
  "message.sent": Message;
  "meeting.updated": Changed<Meeting>;
  /** The meeting, and the tasks its action items became (new ones and those delivered before). */
  "meeting.transcript_ready": Meeting & { actionItemTaskIds: string[] };
}

/** Events about a record or what hangs on it name the record's object type, which `objectTypeIds` filters match. */
export type ObjectTypeEventType = Extract<EventType, `record.${string}` | `task.${string}` | `note.${string}`>;
