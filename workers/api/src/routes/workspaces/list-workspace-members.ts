import type { operations } from "@crm/contracts";
import { listWorkspaceMembersOf } from "../../domain/workspace-members";
import type { OperationHandler } from "../../handler";

export const listWorkspaceMembers: OperationHandler<typeof operations.listWorkspaceMembers> = async (c) =>
  c.json(await listWorkspaceMembersOf(c.var, c.req.valid("param").workspaceId, c.req.valid("query")), 200);
