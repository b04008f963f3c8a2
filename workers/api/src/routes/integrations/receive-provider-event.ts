import type { SignedOperationId } from "@crm/contracts";
import type { Handler } from "hono";
import { receiveDelivery } from "../../domain/meetings/inbound";
import type { AppEnv } from "../../env";

/**
 * A signed provider delivery, as the gateway routed it here. Not validated by the route's schema
 * before the signature is checked (the service does both, in that order), so a forged request learns
 * nothing and an unknown event type is recorded rather than refused.
 */
const receiveFrom =
  (provider: "meeting_notes" | "calling"): Handler<AppEnv> =>
  async (c) => {
    await receiveDelivery(c.var.db, {
      provider,
      connectionId: c.req.param("connectionId") ?? "",
      organizationId: c.var.actor.organizationId,
      headers: {
        id: c.req.header("webhook-id"),
        timestamp: c.req.header("webhook-timestamp"),
        signature: c.req.header("webhook-signature"),
      },
      body: await c.req.arrayBuffer(),
    });
    return c.json({ received: true as const }, 200);
  };

/** The handler of each signed inbound operation. */
export const inboundHandlers: Record<SignedOperationId, Handler<AppEnv>> = {
  receiveMeetingNotesEvent: receiveFrom("meeting_notes"),
  receiveCallingEvent: receiveFrom("calling"),
};
