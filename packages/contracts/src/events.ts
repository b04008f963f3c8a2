import { z } from "@hono/zod-openapi";

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
