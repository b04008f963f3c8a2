import type { operations } from "@crm/contracts";
import { replayOf } from "../../domain/webhooks/operations";
import type { OperationHandler } from "../../handler";

export const replayWebhook: OperationHandler<typeof operations.replayWebhook> = async (c) =>
  c.json(await replayOf(c.var, c.env, c.req.valid("param").webhookId, c.req.valid("json")), 202);
