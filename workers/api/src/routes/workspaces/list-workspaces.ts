import type { operations } from "@crm/contracts";
import { listVisibleWorkspaces } from "../../domain/workspaces";
import type { OperationHandler } from "../../handler";

export const listWorkspaces: OperationHandler<typeof operations.listWorkspaces> = async (c) =>
  c.json(await listVisibleWorkspaces(c.var, c.req.valid("query")), 200);
