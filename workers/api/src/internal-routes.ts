import {
  ApiError,
  type InboundMailClaims,
  internalRequestHeader,
  sha256Hex,
  type UnsubscribeClaims,
  verifyInternalRequest,
} from "@crm/contracts";
import { Hono } from "hono";
import { regionConfig } from "./config";
import { receiveMail } from "./domain/inbox/mail/inbound";
import { unsubscribeAddress } from "./domain/inbox/mail/unsubscribe";
import { dispatchOutbox } from "./domain/webhooks/dispatch";
import type { AppEnv } from "./env";
import { useShard } from "./use-shard";

const refused = () => new ApiError("unauthorized", "Requests must come through the API gateway");

/**
 * The region's entries for what is not an API operation: inbound mail and unsubscribes, both sent by
 * the gateway over the service binding with a token signed with this region's secret (never public),
 * naming the shard of the organization they are for.
 */
export const internalRoutes = new Hono<AppEnv>()
  .post("/mail/inbound", async (c) => {
    const claims = await verifyInternalRequest<InboundMailClaims>(
      c.req.header(internalRequestHeader),
      "inbound-mail",
      regionConfig(c.env).gatewayContextSecret,
    );
    if (!claims) throw refused();
    const raw = await c.req.arrayBuffer();
    if ((await sha256Hex(raw)) !== claims.digest) throw refused();
    useShard(c, claims.shard);
    const stored = await receiveMail(c.var.db, c.env.ATTACHMENTS, claims.mailbox, raw, {
      nullSender: claims.nullSender === true,
      fromOutside: true,
    });
    if (stored.stored) c.executionCtx.waitUntil(dispatchOutbox({ shard: c.var.shard, db: c.var.db }, c.env));
    return c.json(stored);
  })
  .post("/unsubscribe", async (c) => {
    const claims = await verifyInternalRequest<UnsubscribeClaims>(
      c.req.header(internalRequestHeader),
      "unsubscribe",
      regionConfig(c.env).gatewayContextSecret,
    );
    if (!claims) throw refused();
    useShard(c, claims.shard);
    await unsubscribeAddress(c.var.db, claims);
    return c.json({ unsubscribed: true });
  });
