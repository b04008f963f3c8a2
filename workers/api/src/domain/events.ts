import type { DomainEvent, EventResource, EventType, ObjectTypeEventType } from "@crm/contracts";
import { insertRowsAsJson, newId, regional } from "@crm/db";
import type { BatchItem } from "drizzle-orm/batch";
import type { Database } from "../database";
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

/** The outbox row of an event, made small here (`event-data.ts`): none is over 64 KB. */
function outboxRow<Type extends EventType>(source: EventSource, input: EventInput<Type>, now: number) {
  const event: DomainEvent = boundedEvent({
    id: newId("evt", now),
    type: input.type,
    createdAt: now,
    organizationId: source.organizationId,
    workspaceId: input.workspaceId,
    ...(input.objectTypeId ? { objectTypeId: input.objectTypeId } : {}),
    actor: source.actor,
    data: eventDataOf(input.type, input.data),
  });
  return {
    id: event.id,
    organizationId: event.organizationId,
    workspaceId: event.workspaceId,
    objectTypeId: input.objectTypeId ?? null,
    type: event.type,
    payload: JSON.stringify(event),
    createdAt: now,
    queuedAt: null,
    claimedAt: null,
  };
}

/**
 * The outbox insert announcing a change, to run in the same D1 batch as the change itself:
 * both happen or neither does. Delivery picks it up from the outbox. Every producer goes through here.
 */
export function eventStatement<Type extends EventType>(
  db: Database,
  source: EventSource,
  input: EventInput<Type>,
  now = Date.now(),
): BatchItem<"sqlite"> {
  return db.insert(regional.eventOutbox).values(outboxRow(source, input, now));
}

/** Several events of one change (a batch of records) in one insert, for the same batch as the change. */
export function eventsStatement<Type extends EventType>(
  db: Database,
  source: EventSource,
  inputs: EventInput<Type>[],
  now = Date.now(),
): BatchItem<"sqlite">[] {
  if (inputs.length === 0) return [];
  return [
    insertRowsAsJson(
      db,
      regional.eventOutbox,
      inputs.map((input) => outboxRow(source, input, now)),
    ),
  ];
}

/** The keys a change request gave whose value differs afterwards: the `changedFields` of update events. */
export function changedKeys<Resource extends object>(given: object, before: Resource, after: Resource): string[] {
  const serialized = (resource: Resource, key: string) => JSON.stringify((resource as Record<string, unknown>)[key]);
  return Object.keys(given).filter((key) => serialized(before, key) !== serialized(after, key));
}
