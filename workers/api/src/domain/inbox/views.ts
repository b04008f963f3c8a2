import { type ActorContext, ApiError, type InboxView, type operations } from "@crm/contracts";
import { newId, regional, rowsPerStatement, runBatch } from "@crm/db";
import { and, eq, inArray, or, type SQL, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { loadInWorkspaceWith, reachWorkspace, requireRole } from "../../access";
import { changeWithoutLoss, nextUpdatedAt, runBatchAtVersion, runConditionalBatch } from "../../conditional-write";
import type { Database } from "../../database";
import { withCreators } from "../../directory";
import type { ServiceContext } from "../../env";
import type { BodyOf, QueryOf } from "../../inputs";
import { paginate } from "../../pagination";
import { checkViewReferences } from "./views-config";
import { configOfView, ensureSystemViews } from "./views-system";

const { inboxViewMembers, inboxViews } = regional;
type ViewRow = typeof inboxViews.$inferSelect;

/**
 * The views of a workspace the actor sees: workspace views (the system ones among them), their own
 * personal views, and restricted views they created or are listed on.
 */
function visibleTo(actor: ActorContext): SQL {
  const me = actor.actor.id;
  const listed = sql`exists (select 1 from ${inboxViewMembers} where ${inboxViewMembers.viewId} = ${inboxViews.id} and ${inboxViewMembers.userId} = ${me})`;
  return or(
    eq(inboxViews.visibility, "workspace"),
    and(eq(inboxViews.visibility, "personal"), eq(inboxViews.createdByUserId, me)),
    and(eq(inboxViews.visibility, "restricted"), or(eq(inboxViews.createdByUserId, me), listed)),
  ) as SQL;
}

async function viewResponses(context: ServiceContext, rows: ViewRow[]): Promise<InboxView[]> {
  const { db, actor } = context;
  const restricted = rows.filter((row) => row.visibility === "restricted").map((row) => row.id);
  const members = restricted.length
    ? await db.select().from(inboxViewMembers).where(inArray(inboxViewMembers.viewId, restricted))
    : [];
  const views = rows.map((row) => ({
    id: row.id,
    workspaceId: row.workspaceId,
    name: row.name,
    emoji: row.emoji,
    isSystem: row.isSystem,
    systemViewKey: row.systemViewKey,
    visibility: row.visibility,
    memberUserIds: members.filter((member) => member.viewId === row.id).map((member) => member.userId),
    config: configOfView(row, actor),
    createdByUserId: row.createdByUserId,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  }));
  return withCreators(context, views, (view) => view.createdByUserId);
}

/** The system views first, then the others in the order they were made. */
export async function listInboxViewsOf(context: ServiceContext, input: QueryOf<typeof operations.listInboxViews>) {
  const { db, actor, cursorSecret } = context;
  const { workspaceId, limit, cursor } = input;
  await reachWorkspace(db, actor, workspaceId, { what: "Workspace" });
  await ensureSystemViews(db, workspaceId);
  const page = await paginate<ViewRow>(
    {
      // Personal and restricted views make the list the caller's own.
      scope: `inbox-views:${workspaceId}:${actor.actor.id}`,
      limit,
      cursor,
      order: [
        { column: inboxViews.isSystem, direction: "desc", valueIn: (row) => (row.isSystem ? 1 : 0) },
        { column: inboxViews.createdAt, direction: "asc", valueIn: (row) => row.createdAt },
        { column: inboxViews.id, direction: "asc", valueIn: (row) => row.id },
      ],
      fetch: ({ after, orderBy, limit }) =>
        db
          .select()
          .from(inboxViews)
          .where(and(eq(inboxViews.workspaceId, workspaceId), visibleTo(actor), after))
          .orderBy(...orderBy)
          .limit(limit),
    },
    cursorSecret,
  );
  return { data: await viewResponses(context, page.data), pagination: page.pagination };
}

/** Personal views are their creator's own business; views others see need a manager. */
const writerRole = (visibility: ViewRow["visibility"]) => (visibility === "personal" ? "member" : "manager");

/** An inbox view the actor sees (else 404), with their access to its workspace. */
async function loadVisibleView({ db, actor }: ServiceContext, id: string) {
  const [row, listed, access] = await loadInWorkspaceWith(db, actor, inboxViews, id, { what: "Inbox view" }, (view) =>
    db
      .select({ userId: inboxViewMembers.userId })
      .from(inboxViewMembers)
      .where(and(eq(inboxViewMembers.viewId, view.id), eq(inboxViewMembers.userId, actor.actor.id))),
  );
  const isCreator = row.createdByUserId === actor.actor.id;
  const visible = row.visibility === "workspace" || isCreator || (row.visibility === "restricted" && listed.length > 0);
  if (!visible) throw new ApiError("not_found", "Inbox view not found");
  return { row, access };
}

/** An inbox view as its writes answer it, to a caller who sees it. */
export async function readInboxView(context: ServiceContext, id: string): Promise<InboxView> {
  const { row } = await loadVisibleView(context, id);
  return (await viewResponses(context, [row]))[0] as InboxView;
}

/**
 * An inbox view the actor may change: one they see (else 404), not a system view (409), and with
 * the role its visibility needs.
 */
async function loadWritableView(context: ServiceContext, id: string): Promise<ViewRow> {
  const { row, access } = await loadVisibleView(context, id);
  if (row.systemViewKey) throw new ApiError("system_resource", "System inbox views cannot be changed or deleted");
  requireRole(access, writerRole(row.visibility));
  return row;
}

function memberStatements(db: Database, viewId: string, userIds: string[]): BatchItem<"sqlite">[] {
  const rows = [...new Set(userIds)].map((userId) => ({ viewId, userId }));
  return [
    db.delete(inboxViewMembers).where(eq(inboxViewMembers.viewId, viewId)),
    ...rowsPerStatement(rows, 2).map((chunk) => db.insert(inboxViewMembers).values(chunk)),
  ];
}

export async function createInboxViewIn(
  context: ServiceContext,
  input: BodyOf<typeof operations.createInboxView>,
): Promise<InboxView> {
  const { db, actor } = context;
  await reachWorkspace(db, actor, input.workspaceId, { what: "Workspace", role: writerRole(input.visibility) });
  await checkViewReferences(db, input.workspaceId, input);
  await ensureSystemViews(db, input.workspaceId);
  const now = Date.now();
  const view: ViewRow = {
    id: newId("ivw", now),
    workspaceId: input.workspaceId,
    name: input.name,
    emoji: input.emoji ?? null,
    visibility: input.visibility,
    config: input.config,
    isSystem: false,
    systemViewKey: null,
    createdByUserId: actor.actor.id,
    createdAt: now,
    updatedAt: now,
  };
  await runBatch(db, [db.insert(inboxViews).values(view), ...memberStatements(db, view.id, input.memberUserIds ?? [])]);
  return (await viewResponses(context, [view]))[0] as InboxView;
}

/** Changes an inbox view's named properties, conditionally (`changeWithoutLoss`). */
export async function updateInboxViewOf(
  context: ServiceContext,
  viewId: string,
  changes: BodyOf<typeof operations.updateInboxView>,
): Promise<InboxView> {
  const { db, actor } = context;
  return changeWithoutLoss(context, {
    what: "Inbox view",
    named: Object.keys(changes),
    read: async () => {
      const row = await loadWritableView(context, viewId);
      const [shown] = await viewResponses(context, [row]);
      return { row, shown: shown as InboxView };
    },
    shown: ({ shown }) => shown,
    write: async ({ row }) => {
      const visibility = changes.visibility ?? row.visibility;
      // Making a personal view visible to others needs what writing such a view needs.
      if (visibility !== row.visibility) {
        await reachWorkspace(db, actor, row.workspaceId, { what: "Inbox view", role: writerRole(visibility) });
      }
      await checkViewReferences(db, row.workspaceId, { ...changes, visibility });
      const columns = {
        ...(changes.name === undefined ? {} : { name: changes.name }),
        ...(changes.emoji === undefined ? {} : { emoji: changes.emoji }),
        ...(changes.config === undefined ? {} : { config: changes.config }),
        ...(changes.visibility === undefined ? {} : { visibility }),
      };
      const updatedAt = nextUpdatedAt(row);
      // Only a restricted view lists members: leaving it drops them, `memberUserIds` replaces them.
      const listed = visibility === "restricted" ? changes.memberUserIds : [];
      const members = listed ? memberStatements(db, row.id, listed) : [];
      await runConditionalBatch(db, inboxViews, row, columns, updatedAt, members);
      return (await viewResponses(context, [{ ...row, ...columns, updatedAt }]))[0] as InboxView;
    },
  });
}

export async function deleteInboxViewOf(context: ServiceContext, viewId: string): Promise<void> {
  const { db } = context;
  const row = await loadWritableView(context, viewId);
  await runBatchAtVersion(context, inboxViews, row.id, [
    db.delete(inboxViews).where(eq(inboxViews.id, row.id)),
    db.delete(inboxViewMembers).where(eq(inboxViewMembers.viewId, row.id)),
  ]);
}
