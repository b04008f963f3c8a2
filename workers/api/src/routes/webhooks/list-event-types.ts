import { eventDescriptions, eventTypes, type operations } from "@crm/contracts";
import type { OperationHandler } from "../../handler";
import { paginateFixedList } from "../../pagination";

export const listEventTypes: OperationHandler<typeof operations.listEventTypes> = async (c) => {
  const { limit, cursor } = c.req.valid("query");
  const page = await paginateFixedList(
    eventTypes,
    { scope: "event-types", limit, cursor, keyOf: (type) => type },
    c.var.cursorSecret,
  );
  return c.json(
    { data: page.data.map((type) => ({ type, description: eventDescriptions[type] })), pagination: page.pagination },
    200,
  );
};
