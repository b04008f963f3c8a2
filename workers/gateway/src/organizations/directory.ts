import type { DirectoryEntry, DirectoryQuery } from "@crm/contracts";
import { control } from "@crm/db";
import { and, eq, inArray, or, sql } from "drizzle-orm";
import type { DrizzleD1Database } from "drizzle-orm/d1";

const { users, organizationMembers, agents } = control;

/**
 * The people a region asked for, read now from the control D1 (never cached: a renamed user shows
 * under the new name on the very next read, in every region): the users named, with their role in
 * the organization (null once they left it), plus its admins and owners, plus its agents. Two
 * statements in one D1 batch; the ids go in as one JSON parameter, so any number fits.
 */
export async function directoryEntries(db: DrizzleD1Database, query: DirectoryQuery): Promise<DirectoryEntry[]> {
  const named = sql`${users.id} in (select value from json_each(${JSON.stringify(query.userIds)}))`;
  const admins = inArray(organizationMembers.role, ["owner", "admin"]);
  const [people, organizationAgents] = await db.batch([
    db
      .select({ id: users.id, name: users.name, email: users.email, organizationRole: organizationMembers.role })
      .from(users)
      .leftJoin(
        organizationMembers,
        and(eq(organizationMembers.userId, users.id), eq(organizationMembers.organizationId, query.organizationId)),
      )
      .where(query.everyAdmin ? or(named, and(admins, eq(organizationMembers.organizationId, query.organizationId))) : named),
    db
      .select({ id: agents.id, name: agents.name })
      .from(agents)
      .where(query.agents ? eq(agents.organizationId, query.organizationId) : sql`0`),
  ]);
  return [
    ...people.map((person) => ({ ...person, type: "user" as const })),
    ...organizationAgents.map((agent) => ({ ...agent, type: "agent" as const, email: null, organizationRole: null })),
  ];
}
