import { z } from "@hono/zod-openapi";
import { idSchema, integer, timestampMs } from "./ids";
import { conversationSchema, type Message, messageSchema } from "./operations/inbox-schemas";
import { meetingSchema } from "./operations/meetings";
import { noteSchema } from "./operations/notes";
import { recordSchema } from "./operations/records";
import { taskSchema } from "./operations/tasks";
import { outputText } from "./strings";

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

/**
 * The resource with more properties, as one object (its shape spread, not `extend`, which the
 * document generator turns into an `allOf` of the resource's component and the addition).
 */
const withProperties = <Resource extends z.ZodObject, Added extends z.ZodRawShape>(resource: Resource, added: Added) =>
  z.object({ ...(resource.shape as Resource["shape"]), ...added });

/**
 * Events stay small (DESIGN.md section 10): a Queue message holds 128 KB, and one oversized event
 * must never stop a shard's outbox. No event is larger than this as JSON (UTF-8 bytes).
 */
export const maxEventBytes = 65_536;
/** Note and task text fields in events are cut to this many characters (`truncated` says so). */
export const eventTextLimit = 8_000;

/** Set when a value of the event was cut to keep it small; the resource itself is read through the API. */
const truncated = z.boolean().openapi({
  description:
    "True when text of the resource was cut to 8 000 characters (or, for an event that would exceed 64 KB, other values were cut or left out); read the whole resource through the API.",
});

/** Every event's data may say it was cut; note and task events always say whether. */
const eventData = <Resource extends z.ZodObject>(resource: Resource) =>
  withProperties(resource, { truncated: truncated.optional() });

/**
 * Events name people by id, as when they were written: names are read through the API (the
 * members directory), so an event never carries a name that has changed since.
 */
const assigneeIds = z.array(z.object({ id: idSchema("usr") })).max(50);
const { assignees: _taskAssignees, ...taskEventShape } = taskSchema.shape;
const taskEventSchema = z.object(taskEventShape);
const conversationEventSchema = withProperties(conversationSchema, { assignees: assigneeIds });

/** Updates carry the resource after the change and the keys that changed (field slugs for records). */
const changed = <Resource extends z.ZodObject>(resource: Resource) =>
  eventData(withProperties(resource, { changedFields: z.array(z.string().max(255)).max(500) }));

/** A note or task as events carry it: its text fields cut to `eventTextLimit` characters. */
const withText = <Resource extends z.ZodObject>(resource: Resource) => withProperties(resource, { truncated });

/**
 * A message as events carry it: who, what about and where, never its body or attachments (a
 * newsletter's HTML alone can be 500 000 characters); a consumer reads those through the API.
 */
export const messageEventSchema = z
  .object({
    id: messageSchema.shape.id,
    conversationId: messageSchema.shape.conversationId,
    workspaceId: messageSchema.shape.workspaceId,
    direction: messageSchema.shape.direction,
    from: messageSchema.shape.from,
    to: messageSchema.shape.to,
    cc: messageSchema.shape.cc,
    subject: messageSchema.shape.subject,
    snippet: outputText(200).openapi({ description: "The start of the message's text" }),
    sentAtMs: messageSchema.shape.sentAtMs,
    messageId: messageSchema.shape.messageId,
    inReplyTo: messageSchema.shape.inReplyTo,
    attachmentCount: integer(0, 100),
    truncated: truncated.optional(),
  })
  .openapi("MessageEvent");

/**
 * What `data` holds for each event type: producers are typed by it (a producer cannot emit a shape
 * its type does not promise), and the integrations catalogue publishes it as each trigger's JSON
 * Schema, so the promise and the published schema are one definition.
 */
export const eventDataSchemas = {
  "record.created": eventData(recordSchema),
  "record.updated": changed(recordSchema),
  "record.deleted": eventData(z.object({ id: idSchema("rec"), workspaceId: idSchema("ws"), objectTypeId: idSchema("obj") })),
  "task.created": withText(taskEventSchema),
  "task.updated": withText(withProperties(taskEventSchema, { changedFields: z.array(z.string().max(255)).max(500) })),
  "task.deleted": eventData(z.object({ id: idSchema("task"), workspaceId: idSchema("ws"), recordId: idSchema("rec") })),
  "note.created": withText(noteSchema),
  "note.updated": withText(withProperties(noteSchema, { changedFields: z.array(z.string().max(255)).max(500) })),
  "note.deleted": eventData(z.object({ id: idSchema("note"), workspaceId: idSchema("ws"), recordId: idSchema("rec") })),
  "conversation.created": eventData(conversationEventSchema),
  "message.received": messageEventSchema,
  "message.sent": messageEventSchema,
  "meeting.updated": changed(meetingSchema),
  /** The meeting, and the tasks its action items became (new ones and those delivered before). */
  "meeting.transcript_ready": eventData(withProperties(meetingSchema, { actionItemTaskIds: z.array(idSchema("task")).max(500) })),
} satisfies Record<EventType, z.ZodType>;

export type EventData = { [Type in EventType]: z.infer<(typeof eventDataSchemas)[Type]> };

/**
 * What a producer hands over for each event type: the resource as the API answers it (a whole
 * message, a note or task with its whole text); the event is made small from it where it is built.
 */
export type EventResource = {
  [Type in EventType]: Type extends `message.${string}` ? Message : Omit<EventData[Type], "truncated">;
};

/** Events about a record or what hangs on it name the record's object type, which `objectTypeIds` filters match. */
export type ObjectTypeEventType = Extract<EventType, `record.${string}` | `task.${string}` | `note.${string}`>;

/**
 * `webhook.test`: what `POST /webhooks/{webhookId}/test` sends to one subscription. Not one of the
 * 14 triggers: no change announces it, no filter selects it, and the events feed never lists it.
 */
export const webhookTestEventType = "webhook.test";
/** Every type a delivery can carry: the 14 triggers and the test event. */
export const deliveredEventTypes = [...eventTypes, webhookTestEventType] as const;
export type DeliveredEventType = (typeof deliveredEventTypes)[number];

export const webhookTestDataSchema = z.object({
  webhookId: idSchema("whk"),
  message: z.string().max(255),
});

/** The envelope (DESIGN.md section 10) with every string and number bounded, as the published document states them. */
const deliveredEnvelope = {
  id: idSchema("evt"),
  createdAt: timestampMs,
  organizationId: idSchema("org"),
  workspaceId: idSchema("ws"),
  objectTypeId: idSchema("obj").optional(),
  actor: z.object({
    type: z.enum(["user", "app", "agent", "system"]),
    id: z.string().max(255).openapi({ description: "The actor's id (`usr_…`, `agt_…`, an app's client id), or `system`" }),
  }),
};

/**
 * The event of each type exactly as a webhook delivers it and the events feed serves it: the
 * envelope of DESIGN.md section 10 with that type's `data`. One definition for producers, the
 * integrations catalogue, the feed and its OpenAPI document.
 */
const deliveredEvent = <Type extends EventType>(type: Type) =>
  z.object({ ...deliveredEnvelope, type: z.literal(type), data: eventDataSchemas[type] });

export const typedEventSchemas = Object.fromEntries(eventTypes.map((type) => [type, deliveredEvent(type)])) as {
  [Type in EventType]: ReturnType<typeof deliveredEvent<Type>>;
};

export const typedEventSchema = z
  .discriminatedUnion("type", Object.values(typedEventSchemas) as unknown as [z.ZodObject, ...z.ZodObject[]])
  .openapi("TypedEvent", { description: "An event as delivered: `data` has the shape its `type` names." });
