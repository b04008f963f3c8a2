import type { operations, Workspace } from "@crm/contracts";
import { regional } from "@crm/db";
import { and } from "drizzle-orm";
import { accessOf, memberJoin, visibleWorkspaces } from "../../access";
import type { OperationHandler } from "../../handler";
import { paginate } from "../../pagination";

const { workspaces, workspaceMembers } = regional;

export const listWorkspaces: OperationHandler<typeof operations.listWorkspaces> = async (c) => {
  const { limit, cursor } = c.req.valid("query");
  const actor = c.var.actor;
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
        c.var.db
          .select({ workspace: workspaces, memberRole: workspaceMembers.role, inboxAccess: workspaceMembers.inboxAccess })
          .from(workspaces)
          .leftJoin(workspaceMembers, memberJoin(actor))
          .where(and(visibleWorkspaces(actor), after))
          .orderBy(...orderBy)
          .limit(limit),
    },
    c.env.CURSOR_SECRET,
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
  return c.json({ data, pagination: page.pagination }, 200);
};
