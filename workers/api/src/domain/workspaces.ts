import type { operations, Workspace, WorkspaceRole } from "@crm/contracts";
import { regional } from "@crm/db";
import { type SQL, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { accessOf, reachesEveryWorkspace, type WorkspaceAccess } from "../access";
import { compiledRows, StatementsByShape } from "../compiled-statements";
import type { Database } from "../database";
import type { ServiceContext } from "../env";
import type { QueryOf } from "../inputs";
import { type KeysetColumn, keysetAfter, paginate } from "../pagination";
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

/**
 * What the SQL of a page of workspaces depends on: whether the credential has a workspace limit,
 * whether the actor sees only the workspaces it is a member of, and whether the page continues a
 * walk. Each of these few shapes is compiled once (`compiled-statements.ts`): `GET /workspaces` is
 * the route every client calls first, and building its query with drizzle on each request cost as
 * much CPU as D1 running it.
 */
interface WorkspacePageShape {
  limited: boolean;
  membersOnly: boolean;
  continues: boolean;
}

const workspaceOrder: KeysetColumn<WorkspacePageRow>[] = [
  { column: workspaces.createdAt, direction: "asc", valueIn: (row) => row.created_at },
  { column: workspaces.id, direction: "asc", valueIn: (row) => row.id },
];

/** A workspace with the actor's membership in it, as the page's statement selects it. */
interface WorkspacePageRow {
  id: string;
  organization_id: string;
  name: string;
  description: string | null;
  created_at: number;
  updated_at: number;
  member_role: WorkspaceRole | null;
  inbox_access: WorkspaceAccess["inboxAccess"] | null;
}

/**
 * The workspaces visible to the actor: in its
 * organization, inside the credential's workspace limit (one JSON parameter, however long the list),
 * and for ordinary users only those they are a member of; with the actor's membership left-joined.
 */
const workspacePageSql = ({ limited, membersOnly, continues }: WorkspacePageShape): SQL => {
  const where = [sql`${workspaces.organizationId} = ${sql.placeholder("organizationId")}`];
  if (limited) where.push(sql`${workspaces.id} in (select value from json_each(${sql.placeholder("workspaceIds")}))`);
  if (membersOnly) where.push(sql`${workspaceMembers.userId} is not null`);
  if (continues) where.push(keysetAfter(workspaceOrder, [sql.placeholder("afterCreatedAt"), sql.placeholder("afterId")]));
  return sql`select ${workspaces.id} as id, ${workspaces.organizationId} as organization_id, ${workspaces.name} as name,
    ${workspaces.description} as description, ${workspaces.createdAt} as created_at, ${workspaces.updatedAt} as updated_at,
    ${workspaceMembers.role} as member_role, ${workspaceMembers.inboxAccess} as inbox_access
    from ${workspaces} left join ${workspaceMembers} on ${workspaceMembers.workspaceId} = ${workspaces.id} and ${workspaceMembers.userId} = ${sql.placeholder("userId")}
    where ${sql.join(where, sql` and `)}
    order by ${workspaces.createdAt} asc, ${workspaces.id} asc limit ${sql.placeholder("limit")}`;
};

const workspacePages = new StatementsByShape(8);

/** The workspaces the actor can see, oldest first, each with the actor's role in it. */
export async function listVisibleWorkspaces(
  { db, actor, cursorSecret }: ServiceContext,
  { limit, cursor }: QueryOf<typeof operations.listWorkspaces>,
) {
  const page = await paginate<WorkspacePageRow>(
    {
      scope: `workspaces:${actor.organizationId}`,
      limit,
      cursor,
      order: workspaceOrder,
      fetch: ({ position, limit }) => {
        const shape = { limited: actor.workspaceIds !== null, membersOnly: !reachesEveryWorkspace(actor), continues: !!position };
        const statement = workspacePages.get(`${shape.limited} ${shape.membersOnly} ${shape.continues}`, () =>
          workspacePageSql(shape),
        );
        return compiledRows<WorkspacePageRow>(db, statement, {
          organizationId: actor.organizationId,
          userId: actor.actor.id,
          workspaceIds: JSON.stringify(actor.workspaceIds),
          afterCreatedAt: position?.[0],
          afterId: position?.[1],
          limit,
        });
      },
    },
    cursorSecret,
  );
  const data = page.data.map((row): Workspace => {
    const membership = row.member_role && row.inbox_access ? { role: row.member_role, inboxAccess: row.inbox_access } : null;
    const { role, isInheritedAccess } = accessOf(actor, membership);
    return {
      id: row.id,
      organizationId: row.organization_id,
      name: row.name,
      ...(row.description === null ? {} : { description: row.description }),
      role,
      isInheritedAccess,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
    };
  });
  return { data, pagination: page.pagination };
}
