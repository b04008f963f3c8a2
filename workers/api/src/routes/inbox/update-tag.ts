import type { operations } from "@crm/contracts";
import { updateTagOf } from "../../domain/inbox/tags";
import type { OperationHandler } from "../../handler";

export const updateTag: OperationHandler<typeof operations.updateTag> = async (c) =>
  c.json({ tag: await updateTagOf(c.var, c.req.valid("param").tagId, c.req.valid("json")) }, 200);
