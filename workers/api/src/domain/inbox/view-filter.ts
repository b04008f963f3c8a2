import { type ActorContext, ApiError } from "@crm/contracts";
import { regional } from "@crm/db";
import { and, eq } from "drizzle-orm";
import type { Database } from "../../env";

const { inboxViewMembers, inboxViews } = regional;

export type ConversationFilter = regional.InboxViewConfig["filter"];
export type ConversationSort = regional.InboxViewConfig["sorts"][number];

/** The filter and first sort of an inbox view, as `GET /inbox/conversations?viewId=` applies it. */
export interface ViewSelection {
  filter: ConversationFilter;
  sort: ConversationSort | undefined;
}

/**
 * What the system views select, whatever their stored config says: they mean the same in every
 * workspace, and "assigned to me" is the caller.
 */
const systemFilters = {
  inbox: () => ({ isClosed: false }),
  assigned_to_me: (actor: ActorContext) => ({ assigneeUserIds: [actor.actor.id], isClosed: false }),
  closed: () => ({ isClosed: true }),
} satisfies Record<NonNullable<(typeof inboxViews.$inferSelect)["systemViewKey"]>, (actor: ActorContext) => ConversationFilter>;

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
  const filter = view.systemViewKey ? systemFilters[view.systemViewKey](actor) : view.config.filter;
  return { filter, sort: view.config.sorts[0] };
}
