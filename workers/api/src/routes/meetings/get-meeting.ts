import type { operations } from "@crm/contracts";
import { readMeeting } from "../../domain/meetings/meetings";
import type { OperationHandler } from "../../handler";

export const getMeeting: OperationHandler<typeof operations.getMeeting> = async (c) => {
  const { meetingId } = c.req.valid("param");
  return c.json({ meeting: await readMeeting(c.var, meetingId) }, 200);
};
