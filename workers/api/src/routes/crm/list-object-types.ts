import type { operations } from "@crm/contracts";
import { listObjectTypesOf } from "../../domain/crm/object-types";
import type { OperationHandler } from "../../handler";

export const listObjectTypes: OperationHandler<typeof operations.listObjectTypes> = async (c) => {
  const { workspaceId } = c.req.valid("query");
  return c.json({ objects: await listObjectTypesOf(c.var, workspaceId) }, 200);
};
