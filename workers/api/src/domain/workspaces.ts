import type { operations, Workspace } from "@crm/contracts";
import { regional } from "@crm/db";
import { and } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { accessOf, memberJoin, visibleWorkspaces } from "../access";
import type { Database } from "../database";
import type { ServiceContext } from "../env";
import type { QueryOf } from "../inputs";
import { paginate } from "../pagination";
import { systemObjectTypeStatements } from "./crm/blueprints";

const { workspaces, workspaceMembers } = regional;

export interface NewWorkspace {
  id: string;
  organizationId: string;
  name: string;
  description?: string;
  members: {
    userId: string;
    role: (typeof workspaceMembers.$inferInsert)["role"];
    inboxAccess: (typeof workspaceMembers.$inferInsert)["inboxAccess"];
  }[];
}

/**
 * The statements that bring a workspace into being, for one D1 batch: the workspace, its members,
 * and everything every workspace starts with.
 */
export function createWorkspaceStatements(db: Database, input: NewWorkspace, now = Date.now()): BatchItem<"sqlite">[] {
  const statements: BatchItem<"sqlite">[] = [
    db.insert(workspaces).values({
      id: input.id,
      organizationId: input.organizationId,
      name: input.name,
      description: input.description ?? null,
      createdAt: now,
      updatedAt: now,
    }),
  ];
  statements.push(...systemObjectTypeStatements(db, input.id, now));
  if (input.members.length > 0) {
    statements.push(
      db.insert(workspaceMembers).values(input.members.map((member) => ({ ...member, workspaceId: input.id, createdAt: now }))),
    );
  }
  return statements;
}

/** The workspaces the actor can see, oldest first, each with the actor's role in it. */
export async function listVisibleWorkspaces(
  { db, actor, cursorSecret }: ServiceContext,
  { limit, cursor }: QueryOf<typeof operations.listWorkspaces>,
) {
  type Member = typeof workspaceMembers.$inferSelect;
  type Row = {
    workspace: typeof workspaces.$inferSelect;
    memberRole: Member["role"] | null;
    inboxAccess: Member["inboxAccess"] | null;
  };
  const page = await paginate<Row>(
    {
      scope: `workspaces:${actor.organizationId}`,
      limit,
      cursor,
      order: [
        { column: workspaces.createdAt, direction: "asc", valueIn: (row) => row.workspace.createdAt },
        { column: workspaces.id, direction: "asc", valueIn: (row) => row.workspace.id },
      ],
      fetch: ({ after, orderBy, limit }) =>
        db
          .select({ workspace: workspaces, memberRole: workspaceMembers.role, inboxAccess: workspaceMembers.inboxAccess })
          .from(workspaces)
          .leftJoin(workspaceMembers, memberJoin(actor))
          .where(and(visibleWorkspaces(actor), after))
          .orderBy(...orderBy)
          .limit(limit),
    },
    cursorSecret,
  );
  const data = page.data.map(({ workspace, memberRole, inboxAccess }): Workspace => {
    const membership = memberRole && inboxAccess ? { role: memberRole, inboxAccess } : null;
    const { role, isInheritedAccess } = accessOf(actor, membership);
    return {
      id: workspace.id,
      organizationId: workspace.organizationId,
      name: workspace.name,
      ...(workspace.description === null ? {} : { description: workspace.description }),
      role,
      isInheritedAccess,
      createdAt: workspace.createdAt,
      updatedAt: workspace.updatedAt,
    };
  });
  return { data, pagination: page.pagination };
}
