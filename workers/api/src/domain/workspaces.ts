import { regional } from "@crm/db";
import type { BatchItem } from "drizzle-orm/batch";
import type { Database } from "../env";
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
