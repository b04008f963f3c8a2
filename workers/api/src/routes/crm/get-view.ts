import type { operations } from "@crm/contracts";
import { readView } from "../../domain/crm/views";
import type { OperationHandler } from "../../handler";

export const getView: OperationHandler<typeof operations.getView> = async (c) => {
  const { viewId } = c.req.valid("param");
  return c.json({ view: await readView(c.var, viewId) }, 200);
};
