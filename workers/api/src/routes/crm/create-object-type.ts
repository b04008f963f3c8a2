import type { operations } from "@crm/contracts";
import { createObjectTypeIn } from "../../domain/crm/object-types";
import type { OperationHandler } from "../../handler";

export const createObjectType: OperationHandler<typeof operations.createObjectType> = async (c) =>
  c.json({ object: await createObjectTypeIn(c.var, c.req.valid("json")) }, 201);
