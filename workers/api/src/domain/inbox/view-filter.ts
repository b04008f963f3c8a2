import { type ActorContext, ApiError } from "@crm/contracts";
import { regional } from "@crm/db";
import { and, eq } from "drizzle-orm";
import type { Database } from "../../database";
import { configOfView } from "./views-system";

const { inboxViewMembers, inboxViews } = regional;

export type ConversationFilter = regional.InboxViewConfig["filter"];
export type ConversationSort = regional.InboxViewConfig["sorts"][number];

/** The filter and first sort of an inbox view, as `GET /inbox/conversations?viewId=` applies it. */
export interface ViewSelection {
  filter: ConversationFilter;
  sort: ConversationSort | undefined;
}

/**
 * The selection of an inbox view of the workspace the caller may see: workspace views, their own
 * personal ones, restricted ones they created or are listed on. Any other id is 404.
 */
export async function viewSelection(
  db: Database,
  actor: ActorContext,
  workspaceId: string,
  viewId: string,
): Promise<ViewSelection> {
  const [found] = await db
    .select({ view: inboxViews, listedUserId: inboxViewMembers.userId })
    .from(inboxViews)
    .leftJoin(inboxViewMembers, and(eq(inboxViewMembers.viewId, inboxViews.id), eq(inboxViewMembers.userId, actor.actor.id)))
    .where(and(eq(inboxViews.id, viewId), eq(inboxViews.workspaceId, workspaceId)))
    .limit(1);
  const view = found?.view;
  const isCreator = view?.createdByUserId === actor.actor.id;
  const visible =
    view &&
    (view.visibility === "workspace" ||
      (view.visibility === "personal" && isCreator) ||
      (view.visibility === "restricted" && (isCreator || found.listedUserId !== null)));
  if (!visible) throw new ApiError("not_found", "Inbox view not found");
  const config = configOfView(view, actor);
  return { filter: config.filter, sort: config.sorts[0] };
}
