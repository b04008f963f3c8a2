import type { ActorContext, InboxView } from "@crm/contracts";
import { newId, regional } from "@crm/db";
import { and, eq, isNotNull } from "drizzle-orm";
import type { Database } from "../../database";

const { inboxViews } = regional;

type SystemViewKey = (typeof regional.systemInboxViewKeys)[number];
type ViewRow = typeof inboxViews.$inferSelect;

const newestFirst: regional.InboxViewConfig["sorts"] = [{ field: "lastMessageAtMs", direction: "desc" }];

/** The system views of every workspace, in the order lists show them. */
const systemViews: { key: SystemViewKey; name: string; emoji: string; config: regional.InboxViewConfig }[] = [
  { key: "inbox", name: "Inbox", emoji: "📥", config: { filter: { isClosed: false }, sorts: newestFirst } },
  // No assignee stored: whose conversations it shows depends on who asks (see `configOfView`).
  { key: "assigned_to_me", name: "Assigned to me", emoji: "🙋", config: { filter: { isClosed: false }, sorts: newestFirst } },
  { key: "closed", name: "Closed", emoji: "✅", config: { filter: { isClosed: true }, sorts: newestFirst } },
];

/**
 * Makes the system views of a workspace on first use (the list, or a view's creation, so that they
 * are older than every custom view). Workspaces are created in the control plane and the seed, and
 * a migration cannot make random ids, so no other path needs to know about them. The unique
 * `(workspace_id, system_view_key)` index keeps one of each when two first uses race.
 */
export async function ensureSystemViews(db: Database, workspaceId: string): Promise<void> {
  const existing = await db
    .select({ key: inboxViews.systemViewKey })
    .from(inboxViews)
    .where(and(eq(inboxViews.workspaceId, workspaceId), isNotNull(inboxViews.systemViewKey)));
  if (existing.length === systemViews.length) return;
  const now = Date.now();
  // Made in one millisecond, the views are ordered by id: sorted ids keep the order of `systemViews`.
  const ids = systemViews.map(() => newId("ivw", now)).sort();
  await db
    .insert(inboxViews)
    .values(
      systemViews.map((view, i) => ({
        id: ids[i] as string,
        workspaceId,
        name: view.name,
        emoji: view.emoji,
        visibility: "workspace" as const,
        config: view.config,
        isSystem: true,
        systemViewKey: view.key,
        createdByUserId: null,
        createdAt: now,
        updatedAt: now,
      })),
    )
    .onConflictDoNothing();
}

/**
 * A view's configuration as it applies to the actor, for the list (`viewId`) and the view's own
 * response alike. System views mean what their key says in every workspace, whatever their row
 * holds; `assigned_to_me` selects the conversations assigned to the caller (apps and agents have no
 * assignments, so theirs selects none).
 */
export function configOfView(view: Pick<ViewRow, "systemViewKey" | "config">, actor: ActorContext): InboxView["config"] {
  if (!view.systemViewKey) return view.config;
  const { config } = systemViews.find((system) => system.key === view.systemViewKey) as (typeof systemViews)[number];
  if (view.systemViewKey !== "assigned_to_me") return config;
  return { ...config, filter: { ...config.filter, assigneeUserIds: [actor.actor.id] } };
}
