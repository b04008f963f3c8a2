import type { operations } from "@crm/contracts";
import { createViewOn } from "../../domain/crm/views";
import type { OperationHandler } from "../../handler";

export const createView: OperationHandler<typeof operations.createView> = async (c) => {
  const { objectTypeId } = c.req.valid("param");
  return c.json({ view: await createViewOn(c.var, objectTypeId, c.req.valid("json")) }, 201);
};
