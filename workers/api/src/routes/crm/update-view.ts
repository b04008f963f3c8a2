import type { operations } from "@crm/contracts";
import { updateViewOf } from "../../domain/crm/views";
import type { OperationHandler } from "../../handler";

export const updateView: OperationHandler<typeof operations.updateView> = async (c) => {
  const { viewId } = c.req.valid("param");
  return c.json({ view: await updateViewOf(c.var, viewId, c.req.valid("json")) }, 200);
};
