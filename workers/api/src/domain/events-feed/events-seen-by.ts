import type { JSONValue } from "hono/utils/types";
import type { WorkspaceAccess } from "../../access";
import type { Database } from "../../database";
import { conversationsSeenBy, linkedConversationIds, linksSeen } from "../tasks/links";
import type { TaskRow } from "../tasks/response";

/** An event exactly as the outbox stored it, which is exactly what webhooks deliver. */
export type StoredEvent = { [property: string]: JSONValue };

type Link = TaskRow["linkedResources"][number];

/**
 * The event types whose data names conversations besides the conversation's own events: a task's
 * `linkedResources` (label: the subject). Records, notes and meetings name none; `task.deleted`
 * carries ids only. The conversation's own events (`conversation.created`, `message.received`,
 * `message.sent`) are about the conversation itself: for a reader who may not see it they are left
 * out whole by the feed's query (`selectionConditions`), as the conversation routes answer 404.
 */
const typesWithLinks = new Set(["task.created", "task.updated"]);

const linksOf = (event: StoredEvent): Link[] | undefined =>
  typeof event.type === "string" && typesWithLinks.has(event.type)
    ? (event.data as { linkedResources?: Link[] } | undefined)?.linkedResources
    : undefined;

/**
 * Events as one reader may see them (reference rule 8). A task event stays, as the task itself is
 * visible to a record-scoped member, but shows the task as the task routes do (`tasksSeenBy`):
 * without its links to conversations outside the reader's access, and so without their subjects.
 * Filtered at read time against the conversations' links now, as the task routes are: the stored
 * payload is what webhooks deliver, and one stored row serves every reader.
 */
export async function eventsSeenBy(db: Database, access: WorkspaceAccess, events: StoredEvent[]): Promise<StoredEvent[]> {
  const seen = await conversationsSeenBy(
    db,
    access,
    events.flatMap((event) => linkedConversationIds(linksOf(event) ?? [])),
  );
  return events.map((event) => {
    const links = linksOf(event);
    if (!links) return event;
    return { ...event, data: { ...(event.data as { [property: string]: JSONValue }), linkedResources: linksSeen(links, seen) } };
  });
}
