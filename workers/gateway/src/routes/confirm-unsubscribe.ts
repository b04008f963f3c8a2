import type { operations } from "@crm/contracts";
import type { RouteHandler } from "@hono/zod-openapi";
import type { HandlerEnv } from "../env";
import { unsubscribe, unsubscribedPage, unsubscribeLinkOf, unsubscribePageHeaders } from "../mail/unsubscribe";

/** `POST /email/unsubscribe`: RFC 8058 one-click; 200 without a redirect, the same on every repeat. */
export const confirmUnsubscribe: RouteHandler<(typeof operations.confirmUnsubscribe)["route"], HandlerEnv<"none">> = async (
  c,
) => {
  const link = await unsubscribeLinkOf(c.env, c.req.valid("query").token);
  await unsubscribe(c.env, link);
  return c.html(unsubscribedPage(link), 200, unsubscribePageHeaders);
};
