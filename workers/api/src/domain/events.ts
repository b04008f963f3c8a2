import type { DomainEvent, EventResource, EventType, ObjectTypeEventType } from "@crm/contracts";
import { newId, regional } from "@crm/db";
import type { BatchItem } from "drizzle-orm/batch";
import type { Database } from "../env";
import { boundedEvent, eventDataOf } from "./event-data";

/**
 * An event to announce: the resource it is about (made small where the event is built), and record, task and note events
 * must name the record's object type (null only once that type was deleted).
 */
export type EventInput<Type extends EventType> = {
  type: Type;
  workspaceId: string;
  data: EventResource[Type];
} & (Type extends ObjectTypeEventType ? { objectTypeId: string | null } : { objectTypeId?: string });

/** Who caused an event: an actor of a request, or `system` for internal producers. */
export interface EventSource {
  organizationId: string;
  actor: DomainEvent["actor"];
}

/**
 * The outbox insert announcing a change, to run in the same D1 batch as the change itself:
 * both happen or neither does. Delivery picks it up from the outbox. Every producer goes through
 * here, so every event is made small here (`event-data.ts`): none is over 64 KB.
 */
export function eventStatement<Type extends EventType>(
  db: Database,
  source: EventSource,
  input: EventInput<Type>,
  now = Date.now(),
): BatchItem<"sqlite"> {
  const event = boundedEvent({
    id: newId("evt", now),
    type: input.type,
    createdAt: now,
    organizationId: source.organizationId,
    workspaceId: input.workspaceId,
    ...(input.objectTypeId ? { objectTypeId: input.objectTypeId } : {}),
    actor: source.actor,
    data: eventDataOf(input.type, input.data),
  });
  return db.insert(regional.eventOutbox).values({
    id: event.id,
    organizationId: event.organizationId,
    workspaceId: event.workspaceId,
    objectTypeId: input.objectTypeId ?? null,
    type: event.type,
    payload: JSON.stringify(event),
    createdAt: now,
    queuedAt: null,
    claimedAt: null,
  });
}

/** The keys a change request gave whose value differs afterwards: the `changedFields` of update events. */
export function changedKeys<Resource extends object>(given: object, before: Resource, after: Resource): string[] {
  const serialized = (resource: Resource, key: string) => JSON.stringify((resource as Record<string, unknown>)[key]);
  return Object.keys(given).filter((key) => serialized(before, key) !== serialized(after, key));
}
