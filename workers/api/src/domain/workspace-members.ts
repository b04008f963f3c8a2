import type { DirectoryEntry, operations, Problem, WorkspaceMember } from "@crm/contracts";
import { inJsonList, regional } from "@crm/db";
import { and, eq } from "drizzle-orm";
import { reachWorkspace, userAccess } from "../access";
import type { Database } from "../database";
import type { ServiceContext } from "../env";
import type { QueryOf } from "../inputs";
import { paginateSorted } from "../pagination";

const { workspaceMembers } = regional;

/** The users among `userIds` who are members of the workspace: one query, however many are named. */
export async function membersAmong(db: Database, workspaceId: string, userIds: string[]): Promise<Set<string>> {
  if (userIds.length === 0) return new Set();
  const found = await db
    .select({ userId: workspaceMembers.userId })
    .from(workspaceMembers)
    .where(and(eq(workspaceMembers.workspaceId, workspaceId), inJsonList(workspaceMembers.userId, userIds)));
  return new Set(found.map((row) => row.userId));
}

/** A problem at `<path>.<index>` for each of `userIds` that is not a member of the workspace. */
export async function notMembers(db: Database, workspaceId: string, userIds: string[], path: string): Promise<Problem[]> {
  const members = await membersAmong(db, workspaceId, userIds);
  return userIds.flatMap((id, i) =>
    members.has(id) ? [] : [{ path: `${path}.${i}`, message: "Not a member of the workspace" }],
  );
}

type Membership = typeof workspaceMembers.$inferSelect;

/** The people of directory `entries` who can act in the workspace, with their access there (its `memberships` by user id). */
function membersFrom(entries: DirectoryEntry[], memberships: Map<string, Membership>): WorkspaceMember[] {
  return entries.flatMap((entry): WorkspaceMember[] => {
    if (entry.type === "agent")
      return [
        { id: entry.id, type: "agent", name: entry.name, email: null, role: null, isInheritedAccess: true, inboxAccess: "all" },
      ];
    const membership = memberships.get(entry.id) ?? null;
    const access = userAccess(entry.organizationRole, membership);
    if (entry.organizationRole === null || access.role === null) return [];
    return [{ id: entry.id, type: "user", name: entry.name, email: entry.email, ...access }];
  });
}

/**
 * Everyone who can act in a workspace, by id: its members (their memberships are this region's),
 * the organization's admins and owners through their inherited access, and its agents, with names,
 * addresses and organization roles from the directory (the gateway's control D1), read now.
 * Users who left the organization are not listed, whatever memberships remain.
 */
export async function listWorkspaceMembersOf(
  { db, actor, directory, cursorSecret }: ServiceContext,
  workspaceId: string,
  { limit, cursor }: QueryOf<typeof operations.listWorkspaceMembers>,
) {
  await reachWorkspace(db, actor, workspaceId, { what: "Workspace" });
  const memberships = new Map(
    (await db.select().from(workspaceMembers).where(eq(workspaceMembers.workspaceId, workspaceId))).map((row) => [
      row.userId,
      row,
    ]),
  );
  const entries = await directory.entries(actor.organizationId, {
    userIds: [...memberships.keys()],
    everyAdmin: true,
    agents: true,
  });
  return paginateSorted(
    { scope: `members:${workspaceId}`, limit, cursor, rows: membersFrom(entries, memberships), key: (member) => member.id },
    cursorSecret,
  );
}

/** The users among `userIds` the workspace's members list shows, with their access: who may be named in it. */
export async function workspaceUsersAmong(
  { db, actor, directory }: Pick<ServiceContext, "db" | "actor" | "directory">,
  workspaceId: string,
  userIds: string[],
): Promise<WorkspaceMember[]> {
  if (userIds.length === 0) return [];
  const memberships = new Map(
    (
      await db
        .select()
        .from(workspaceMembers)
        .where(and(eq(workspaceMembers.workspaceId, workspaceId), inJsonList(workspaceMembers.userId, userIds)))
    ).map((row) => [row.userId, row]),
  );
  const entries = await directory.entries(actor.organizationId, { userIds, everyAdmin: false, agents: false });
  return membersFrom(entries, memberships);
}
