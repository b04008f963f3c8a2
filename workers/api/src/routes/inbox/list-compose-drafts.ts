import type { operations } from "@crm/contracts";
import { listComposeDraftsIn } from "../../domain/inbox/compose-drafts";
import type { OperationHandler } from "../../handler";

export const listComposeDrafts: OperationHandler<typeof operations.listComposeDrafts> = async (c) =>
  c.json(await listComposeDraftsIn(c.var, c.req.valid("query")), 200);
