import type { operations } from "@crm/contracts";
import type { RouteHandler } from "@hono/zod-openapi";
import type { HandlerEnv } from "../env";
import { confirmationPage, unsubscribeLinkOf, unsubscribePageHeaders } from "../mail/unsubscribe";

/** `GET /email/unsubscribe`: the confirmation page. It changes nothing, since link scanners open such links. */
export const showUnsubscribe: RouteHandler<(typeof operations.showUnsubscribe)["route"], HandlerEnv<"none">> = async (c) => {
  const { token } = c.req.valid("query");
  return c.html(confirmationPage(await unsubscribeLinkOf(c.env, token), token), 200, unsubscribePageHeaders);
};
