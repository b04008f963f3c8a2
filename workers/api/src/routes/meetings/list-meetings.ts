import type { operations } from "@crm/contracts";
import { listMeetingsOf } from "../../domain/meetings/meetings";
import type { OperationHandler } from "../../handler";

export const listMeetings: OperationHandler<typeof operations.listMeetings> = async (c) =>
  c.json(await listMeetingsOf(c.var, c.req.valid("query")), 200);
