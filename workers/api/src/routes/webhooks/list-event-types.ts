import { eventDescriptions, eventTypes, type operations } from "@crm/contracts";
import type { OperationHandler } from "../../handler";

export const listEventTypes: OperationHandler<typeof operations.listEventTypes> = async (c) =>
  c.json({ data: eventTypes.map((type) => ({ type, description: eventDescriptions[type] })) }, 200);
