import { type ActorContext, ApiError, type WorkspaceRole } from "@crm/contracts";
import { regional } from "@crm/db";
import { and, eq, isNull, type Placeholder, type SQL } from "drizzle-orm";
import type { SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";
import type { Database } from "./database";

const { workspaces, workspaceMembers } = regional;

const roleRank: Record<WorkspaceRole, number> = { viewer: 0, member: 1, manager: 2, admin: 3, owner: 4 };

export interface WorkspaceAccess {
  role: WorkspaceRole | null;
  isInheritedAccess: boolean;
  inboxAccess: "all" | "record_read" | "record_reply";
}

/** Organization admins and owners reach every workspace of the organization, as do apps and agents. */
export const reachesEveryWorkspace = (actor: ActorContext) =>
  actor.actor.type !== "user" || actor.organizationRole === "owner" || actor.organizationRole === "admin";

/** The membership of `userId` (an actor's id, or a placeholder in a statement prepared once) joined to its workspace. */
export const memberJoin = (userId: string | Placeholder) =>
  and(eq(workspaceMembers.workspaceId, workspaces.id), eq(workspaceMembers.userId, userId)) as SQL;

/** Effective role and inheritance of one visible workspace for the actor (null role for apps and agents). */
export function accessOf(
  actor: ActorContext,
  membership: { role: WorkspaceRole; inboxAccess: WorkspaceAccess["inboxAccess"] } | null,
): WorkspaceAccess {
  if (actor.actor.type !== "user") return { role: null, isInheritedAccess: true, inboxAccess: "all" };
  return userAccess(actor.organizationRole, membership);
}

/**
 * A user's access to a workspace from their organization role and membership (null: none): admins and
 * owners reach it anyway, with the higher of the two roles and every message. Members without a
 * membership do not reach it (null).
 */
export function userAccess(
  organizationRole: ActorContext["organizationRole"],
  membership: { role: WorkspaceRole; inboxAccess: WorkspaceAccess["inboxAccess"] } | null,
): WorkspaceAccess {
  const inherited = organizationRole === "owner" || organizationRole === "admin" ? organizationRole : null;
  if (!membership) return { role: inherited, isInheritedAccess: true, inboxAccess: "all" };
  const role = inherited && roleRank[inherited] > roleRank[membership.role] ? inherited : membership.role;
  return { role, isInheritedAccess: false, inboxAccess: inherited ? "all" : membership.inboxAccess };
}

/**
 * Resolves a workspace the request names. Another organization's workspace is 404 (no existence
 * leak); one of the actor's organization outside the key's limit or the user's access is 403.
 */
export async function requireWorkspace(db: Database, actor: ActorContext, workspaceId: string) {
  const [row] = await workspaceWithMembership(db, actor, eq(workspaces.id, workspaceId));
  return workspaceAccessFrom(actor, workspaceId, row);
}

/** The workspace `where` selects with the actor's membership in it, unawaited (a caller may batch it with other reads). */
export const workspaceWithMembership = (db: Database, actor: ActorContext, where: SQL) =>
  db
    .select({
      workspace: workspaces,
      memberRole: workspaceMembers.role,
      inboxAccess: workspaceMembers.inboxAccess,
    })
    .from(workspaces)
    .leftJoin(workspaceMembers, memberJoin(actor.actor.id))
    .where(where)
    .limit(1);

/** `requireWorkspace`'s checks on the row `workspaceWithMembership` read (undefined: no such workspace). */
export function workspaceAccessFrom(
  actor: ActorContext,
  workspaceId: string,
  row: Awaited<ReturnType<typeof workspaceWithMembership>>[number] | undefined,
) {
  if (!row || row.workspace.organizationId !== actor.organizationId) throw new ApiError("not_found", "Workspace not found");
  const visible =
    (!actor.workspaceIds || actor.workspaceIds.includes(workspaceId)) && (reachesEveryWorkspace(actor) || row.memberRole);
  if (!visible) throw new ApiError("workspace_forbidden", "This credential cannot reach that workspace");
  const membership = row.memberRole && row.inboxAccess ? { role: row.memberRole, inboxAccess: row.inboxAccess } : null;
  return { workspace: row.workspace, access: accessOf(actor, membership) };
}

/** Refuses the action unless the actor's role in the workspace is at least `minimum` (apps and agents pass). */
export function requireRole(access: WorkspaceAccess, minimum: WorkspaceRole): void {
  if (access.role === null && access.isInheritedAccess) return;
  if (!access.role || roleRank[access.role] < roleRank[minimum]) {
    throw new ApiError("forbidden", `This action needs the ${minimum} role or higher in the workspace`);
  }
}

/**
 * The workspace of a resource the request named, for an actor: the workspace of another
 * organization is the same 404 as an unknown resource ("<what> not found"); outside the
 * credential's reach is 403, and so is a role below `role` when one is required.
 */
export async function reachWorkspace(
  db: Database,
  actor: ActorContext,
  workspaceId: string,
  { what, role }: { what: string; role?: WorkspaceRole | undefined },
): Promise<WorkspaceAccess> {
  const [row] = await workspaceWithMembership(db, actor, eq(workspaces.id, workspaceId));
  return reachFrom(actor, workspaceId, row, { what, role });
}

/**
 * `reachWorkspace`'s checks on the row of the resource's workspace and the actor's membership,
 * read by the caller (`workspaceWithMembership`, or the same columns in a statement that reads the
 * resource too, one round trip).
 */
export function reachFrom(
  actor: ActorContext,
  workspaceId: string,
  row: Parameters<typeof workspaceAccessFrom>[2],
  { what, role }: { what: string; role?: WorkspaceRole | undefined },
): WorkspaceAccess {
  try {
    const { access } = workspaceAccessFrom(actor, workspaceId, row);
    if (role) requireRole(access, role);
    return access;
  } catch (error) {
    if (error instanceof ApiError && error.code === "not_found") throw new ApiError("not_found", `${what} not found`);
    throw error;
  }
}

/** A table of resources that belong to a workspace; `deletedAt` where deletes are soft. */
type WorkspaceResourceTable = SQLiteTable & { id: SQLiteColumn; workspaceId: SQLiteColumn; deletedAt?: SQLiteColumn };

/**
 * The one loader of a resource by id: find the row (soft-deleted ones do not exist), 404 when
 * there is none, then the workspace check of `reachWorkspace`. Unknown, deleted and other
 * organizations' ids are therefore the same 404.
 */
export async function loadInWorkspace<Table extends WorkspaceResourceTable>(
  db: Database,
  actor: ActorContext,
  table: Table,
  id: string,
  options: { what: string; role?: WorkspaceRole | undefined },
): Promise<Table["$inferSelect"]> {
  const [row] = await loadInWorkspaceWith(db, actor, table, id, options, async () => undefined);
  return row;
}

/**
 * `loadInWorkspace`, with more reads of the found row run while its workspace is checked; their
 * results are returned only once the check passed, with the actor's access to the workspace (its
 * inbox access decides which conversations the actor sees).
 */
export async function loadInWorkspaceWith<Table extends WorkspaceResourceTable, Extra>(
  db: Database,
  actor: ActorContext,
  table: Table,
  id: string,
  options: { what: string; role?: WorkspaceRole | undefined },
  read: (row: Table["$inferSelect"]) => Promise<Extra>,
): Promise<[Table["$inferSelect"], Extra, WorkspaceAccess]> {
  const [found] = await db
    .select()
    .from(table as SQLiteTable)
    .where(and(eq(table.id, id), table.deletedAt ? isNull(table.deletedAt) : undefined))
    .limit(1);
  if (!found) throw new ApiError("not_found", `${options.what} not found`);
  const row = found as Table["$inferSelect"];
  const [access, extra] = await Promise.all([
    reachWorkspace(db, actor, (found as { workspaceId: string }).workspaceId, options),
    read(row),
  ]);
  return [row, extra, access];
}
