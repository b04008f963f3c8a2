import { ApiError, type operations, webhookTestEventType } from "@crm/contracts";
import { regional } from "@crm/db";
import { and, eq, gt } from "drizzle-orm";
import type { JSONValue } from "hono/utils/types";
import { loadInWorkspaceWith, reachWorkspace } from "../../access";
import type { ServiceContext } from "../../env";
import type { QueryOf } from "../../inputs";
import { paginate } from "../../pagination";
import { keptSince, selectionConditions, startOfSince, writeOrder } from "./stored-events";

const { eventOutbox } = regional;

/** An event exactly as the outbox stored it, which is exactly what webhooks deliver. */
const storedEvent = (payload: string) => JSON.parse(payload) as { [property: string]: JSONValue };

/**
 * `GET /events`: a workspace's events in write order, from a cursor, just after a given event, from
 * `sinceMs`, or from 30 days back. Events of conversations a record-scoped member may not see are
 * left out by the query itself.
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
      ? await positionOf(context, workspaceId, afterEventId)
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
  return { data: page.data.map((row) => storedEvent(row.payload)), pagination: page.pagination };
}

/** The write position of an event of the workspace (kept, one of the 14 triggers): where `afterEventId` resumes. */
async function positionOf({ db }: ServiceContext, workspaceId: string, eventId: string): Promise<number> {
  const [event] = await db
    .select({ position: writeOrder, type: eventOutbox.type })
    .from(eventOutbox)
    .where(and(eq(eventOutbox.id, eventId), eq(eventOutbox.workspaceId, workspaceId)));
  if (!event || event.type === webhookTestEventType)
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
  return { event: storedEvent(visible.payload) };
}
