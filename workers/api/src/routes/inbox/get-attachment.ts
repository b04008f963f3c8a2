import type { operations } from "@crm/contracts";
import { attachmentResponse } from "../../domain/inbox/mail/attachments";
import type { OperationHandler } from "../../handler";

export const getAttachment: OperationHandler<typeof operations.getAttachment> = async (c) => {
  const { messageId, attachmentId } = c.req.valid("param");
  return attachmentResponse(c.var, c.env.ATTACHMENTS, messageId, attachmentId);
};
