import { insertRowsAsJson, newId, regional } from "@crm/db";
import { deliveryId } from "../workers/api/src/domain/webhooks/fanout";
import { regionDb } from "./fixtures";

/** Where seeded events belong: a us workspace, its object type, and the user named as their actor. */
export interface HistoryPlace {
  organizationId: string;
  workspaceId: string;
  objectTypeId: string;
  userId: string;
}

/**
 * `count` `record.created` events of the last moment in the workspace's outbox, already dispatched
 * (queued and claimed) and delivered once to the subscription `deliveredTo` (its attempt rows, as
 * its lane writes them), twenty a millisecond from `start`: the history a replay works through.
 * Resolves once every one of them is in the past.
 */
export async function seedDispatchedEvents(
  place: HistoryPlace,
  count: number,
  deliveredTo: string,
): Promise<{ start: number; eventIds: string[] }> {
  const start = Date.now();
  const rows = Array.from({ length: count }, (_, i) => {
    const createdAt = start + Math.floor(i / 20);
    const id = newId("evt", createdAt);
    const event = {
      id,
      type: "record.created",
      createdAt,
      organizationId: place.organizationId,
      workspaceId: place.workspaceId,
      objectTypeId: place.objectTypeId,
      actor: { type: "user", id: place.userId },
      data: { id: newId("rec", createdAt) },
    };
    return {
      id,
      organizationId: place.organizationId,
      workspaceId: place.workspaceId,
      objectTypeId: place.objectTypeId,
      type: "record.created",
      payload: JSON.stringify(event),
      createdAt,
      queuedAt: createdAt,
      claimedAt: createdAt,
    };
  });
  const db = regionDb("us");
  const attempts = await Promise.all(
    rows.map(async (row) => ({
      id: newId("att", row.createdAt),
      deliveryId: await deliveryId(row.id, deliveredTo),
      attempt: 1,
      webhookId: deliveredTo,
      eventId: row.id,
      eventType: row.type,
      status: "delivered" as const,
      responseStatus: 200,
      durationMs: 1,
      createdAt: row.createdAt,
    })),
  );
  for (let i = 0; i < rows.length; i += 500) {
    await db.run(insertRowsAsJson(db, regional.eventOutbox, rows.slice(i, i + 500)));
    await db.run(insertRowsAsJson(db, regional.webhookAttempts, attempts.slice(i, i + 500)));
  }
  while (Date.now() <= start + Math.ceil(count / 20) + 1) await new Promise((resolve) => setTimeout(resolve, 10));
  return { start, eventIds: rows.map((row) => row.id) };
}
