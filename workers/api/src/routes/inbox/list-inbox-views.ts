import type { operations } from "@crm/contracts";
import { listInboxViewsOf } from "../../domain/inbox/views";
import type { OperationHandler } from "../../handler";

export const listInboxViews: OperationHandler<typeof operations.listInboxViews> = async (c) =>
  c.json(await listInboxViewsOf(c.var, c.req.valid("query")), 200);
