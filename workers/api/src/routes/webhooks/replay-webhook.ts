import { chargedUnitsHeader, operations } from "@crm/contracts";
import { replayOf } from "../../domain/webhooks/operations";
import type { OperationHandler } from "../../handler";

/** The gateway charges the deliveries queued, reported in `chargedUnitsHeader`. */
export const replayWebhook: OperationHandler<typeof operations.replayWebhook> = async (c) => {
  const replayed = await replayOf(c.var, c.env, c.req.valid("param").webhookId, c.req.valid("json"));
  c.header(chargedUnitsHeader, String(replayed.queued * operations.replayWebhook.costUnits));
  return c.json(replayed, 202);
};
