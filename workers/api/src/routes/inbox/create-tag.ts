import type { operations } from "@crm/contracts";
import { createTagIn } from "../../domain/inbox/tags";
import type { OperationHandler } from "../../handler";

export const createTag: OperationHandler<typeof operations.createTag> = async (c) =>
  c.json({ tag: await createTagIn(c.var, c.req.valid("json")) }, 201);
