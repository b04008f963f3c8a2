import type { operations } from "@crm/contracts";
import { listEventsOf } from "../../domain/events-feed/feed";
import type { OperationHandler } from "../../handler";

export const listEvents: OperationHandler<typeof operations.listEvents> = async (c) =>
  c.json(await listEventsOf(c.var, c.req.valid("query")), 200);
