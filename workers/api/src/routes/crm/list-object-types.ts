import type { operations } from "@crm/contracts";
import { regional } from "@crm/db";
import { asc, eq } from "drizzle-orm";
import { objectTypeResponse, requireWorkspaceRole } from "../../domain/crm/resources";
import type { OperationHandler } from "../../handler";

const { objectTypes } = regional;

export const listObjectTypes: OperationHandler<typeof operations.listObjectTypes> = async (c) => {
  const { workspaceId } = c.req.valid("query");
  await requireWorkspaceRole(c.var.db, c.var.actor, workspaceId);
  const rows = await c.var.db
    .select()
    .from(objectTypes)
    .where(eq(objectTypes.workspaceId, workspaceId))
    .orderBy(asc(objectTypes.position), asc(objectTypes.createdAt), asc(objectTypes.id));
  return c.json({ objects: rows.map(objectTypeResponse) }, 200);
};
