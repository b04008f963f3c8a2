import { ApiError } from "@crm/contracts";
import type { Context } from "hono";
import type { GatewayAppEnv } from "./env";
import { authenticate } from "./pipeline/authenticate";
import { gatewayCall } from "./pipeline/operation-call";

/**
 * A REST request the router has no operation for (an unknown path, a method the path does not serve)
 * has the credential it carries checked before it is told so: a dead, expired, revoked or malformed
 * key is 401 on every path, known or not, so that its holder learns to renew it rather than which
 * paths exist. A request without an `Authorization` header, or with a live credential, goes on to its
 * 404 or 405; the public routes are routed before this and stay as they are.
 */
export async function refuseDeadCredential(c: Context<GatewayAppEnv>): Promise<void> {
  const headers = c.req.raw.headers;
  if (!headers.has("authorization")) return;
  try {
    await authenticate(gatewayCall(c), { method: c.req.method, url: new URL(c.req.url), headers, body: null });
  } catch (error) {
    // The organization a live multi-organization credential acts in (400) is an operation's question: there is none here.
    if (error instanceof ApiError && error.status === 400) return;
    throw error;
  }
}
