import type { operations } from "@crm/contracts";
import { listTagsOf } from "../../domain/inbox/tags";
import type { OperationHandler } from "../../handler";

export const listTags: OperationHandler<typeof operations.listTags> = async (c) =>
  c.json(await listTagsOf(c.var, c.req.valid("query")), 200);
