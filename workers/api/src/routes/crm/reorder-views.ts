import type { operations } from "@crm/contracts";
import { reorderViewsOf } from "../../domain/crm/views";
import type { OperationHandler } from "../../handler";

export const reorderViews: OperationHandler<typeof operations.reorderViews> = async (c) => {
  const { objectTypeId } = c.req.valid("param");
  const { viewIds } = c.req.valid("json");
  await reorderViewsOf(c.var, objectTypeId, viewIds);
  return c.json({ viewIds }, 200);
};
