import { publicBaseUrlHeader } from "@crm/contracts";
import type { Context } from "hono";
import type { AppEnv } from "../../env";

/** The API's public `{base_url}` as the gateway received the request (it sets the header on every forward). */
export const publicBaseUrl = (c: Context<AppEnv>): string =>
  c.req.header(publicBaseUrlHeader) ?? `${new URL(c.req.url).origin}/api/v1`;
