import type { operations } from "@crm/contracts";
import { readEvent } from "../../domain/events-feed/feed";
import type { OperationHandler } from "../../handler";

export const getEvent: OperationHandler<typeof operations.getEvent> = async (c) =>
  c.json(await readEvent(c.var, c.req.valid("param").eventId), 200);
