import { ApiError, type operations } from "@crm/contracts";
import { regional } from "@crm/db";
import { and, eq, gt } from "drizzle-orm";
import { loadInWorkspaceWith, reachWorkspace } from "../../access";
import type { ServiceContext } from "../../env";
import type { QueryOf } from "../../inputs";
import { paginate } from "../../pagination";
import { eventsSeenBy, type StoredEvent } from "./events-seen-by";
import { keptSince, selectionConditions, startOfSince, writeOrder } from "./stored-events";

const { eventOutbox } = regional;

const storedEvent = (payload: string) => JSON.parse(payload) as StoredEvent;

/**
 * `GET /events`: a workspace's events in write order, from a cursor, just after a given event, from
 * `sinceMs`, or from 30 days back. Events of conversations a record-scoped member may not see are
 * left out by the query itself; the links of the others to such conversations by `eventsSeenBy`.
 */
export async function listEventsOf(context: ServiceContext, query: QueryOf<typeof operations.listEvents>, now = Date.now()) {
  const { db, actor, cursorSecret } = context;
  const { workspaceId, types, objectTypeId, sinceMs, afterEventId, limit, cursor } = query;
  // A client pages by repeating its query with `cursor` (as on every list): the start it named
  // then stays in the query, and the cursor, which continues past it, says where the page begins.
  if (sinceMs !== undefined && afterEventId !== undefined)
    throw new ApiError("invalid_request", "Give at most one of `sinceMs` and `afterEventId`", [
      { path: "", in: "query", message: "`sinceMs` and `afterEventId` each say where to start" },
    ]);
  const access = await reachWorkspace(db, actor, workspaceId, { what: "Workspace" });
  if (sinceMs !== undefined && sinceMs < keptSince(now))
    throw new ApiError("invalid_request", "Events are kept 30 days", [
      { path: "sinceMs", message: "Must be within the last 30 days" },
    ]);
  const selection = {
    workspaceId,
    types: types && [...new Set(types)].sort(),
    objectTypeIds: objectTypeId ? [objectTypeId] : undefined,
    sinceMs: sinceMs ?? 0,
    linkedConversationsOnly: access.inboxAccess !== "all",
  };
  const start =
    afterEventId !== undefined
      ? await positionOf(context, selection, afterEventId, now)
      : sinceMs !== undefined
        ? await startOfSince(db, workspaceId, sinceMs)
        : 0;
  const page = await paginate(
    {
      // The cursor holds a write position: it is bound to the filters and to what the reader may see.
      scope: `events:${workspaceId}:${selection.linkedConversationsOnly ? actor.actor.id : ""}:${selection.types ?? ""}:${objectTypeId ?? ""}`,
      limit,
      cursor,
      order: [{ column: writeOrder, direction: "asc", valueIn: (row: { position: number }) => row.position }],
      fetch: ({ after, orderBy, limit }) =>
        db
          .select({ position: writeOrder, payload: eventOutbox.payload })
          .from(eventOutbox)
          .where(and(selectionConditions(selection, now), after ?? gt(writeOrder, start)))
          .orderBy(...orderBy)
          .limit(limit),
    },
    cursorSecret,
  );
  const data = await eventsSeenBy(
    db,
    access,
    page.data.map((row) => storedEvent(row.payload)),
  );
  return { data, pagination: page.pagination };
}

/**
 * Where `afterEventId` resumes: the write position of an event of the workspace that this reader
 * may see (kept, one of the 14 triggers), whatever the `types` and `objectTypeId` filters. An event
 * the reader may not see is the same 400 as an unknown id, so the answer tells nobody it exists.
 */
async function positionOf(
  { db }: ServiceContext,
  { workspaceId, linkedConversationsOnly }: { workspaceId: string; linkedConversationsOnly: boolean },
  eventId: string,
  now: number,
): Promise<number> {
  const [event] = await db
    .select({ position: writeOrder })
    .from(eventOutbox)
    .where(and(eq(eventOutbox.id, eventId), selectionConditions({ workspaceId, sinceMs: 0, linkedConversationsOnly }, now)));
  if (!event)
    throw new ApiError("invalid_request", "`afterEventId` names no event of the workspace within the last 30 days", [
      { path: "afterEventId", message: "Not an event of the workspace within the last 30 days" },
    ]);
  return event.position;
}

/** `GET /events/{eventId}`: one kept event the actor may see; anything else is the same 404. */
export async function readEvent(context: ServiceContext, eventId: string, now = Date.now()) {
  const { db, actor } = context;
  const [row, , access] = await loadInWorkspaceWith(db, actor, eventOutbox, eventId, { what: "Event" }, async () => {});
  const [visible] = await db
    .select({ payload: eventOutbox.payload })
    .from(eventOutbox)
    .where(
      and(
        eq(eventOutbox.id, eventId),
        selectionConditions(
          { workspaceId: row.workspaceId, sinceMs: 0, linkedConversationsOnly: access.inboxAccess !== "all" },
          now,
        ),
      ),
    );
  if (!visible) throw new ApiError("not_found", "Event not found");
  const [event] = await eventsSeenBy(db, access, [storedEvent(visible.payload)]);
  return { event: event as StoredEvent };
}
