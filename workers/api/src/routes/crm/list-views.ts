import type { operations } from "@crm/contracts";
import { listViewsOf } from "../../domain/crm/views";
import type { OperationHandler } from "../../handler";

export const listViews: OperationHandler<typeof operations.listViews> = async (c) => {
  const { objectTypeId } = c.req.valid("param");
  return c.json(await listViewsOf(c.var, objectTypeId, c.req.valid("query")), 200);
};
