import type { DomainEvent, EventType } from "@crm/contracts";
import { newId, regional } from "@crm/db";
import type { BatchItem } from "drizzle-orm/batch";
import type { Database } from "../env";

export interface EventInput {
  type: EventType;
  workspaceId: string;
  objectTypeId?: string;
  data: Record<string, unknown>;
}

/** Who caused an event: an actor of a request, or `system` for internal producers. */
export interface EventSource {
  organizationId: string;
  actor: DomainEvent["actor"];
}

/**
 * The outbox insert announcing a change, to run in the same D1 batch as the change itself:
 * both happen or neither does. Delivery picks it up from the outbox.
 */
export function eventStatement(db: Database, actor: EventSource, input: EventInput, now = Date.now()): BatchItem<"sqlite"> {
  const event: DomainEvent = {
    id: newId("evt", now),
    type: input.type,
    createdAt: now,
    organizationId: actor.organizationId,
    workspaceId: input.workspaceId,
    ...(input.objectTypeId ? { objectTypeId: input.objectTypeId } : {}),
    actor: actor.actor,
    data: input.data,
  };
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
