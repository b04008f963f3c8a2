import type { operations } from "@crm/contracts";
import { loadView, viewResponse } from "../../domain/crm/resources";
import type { OperationHandler } from "../../handler";

export const getView: OperationHandler<typeof operations.getView> = async (c) => {
  const { viewId } = c.req.valid("param");
  return c.json({ view: viewResponse(await loadView(c.var.db, c.var.actor, viewId)) }, 200);
};
