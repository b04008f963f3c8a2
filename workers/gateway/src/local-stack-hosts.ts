import { ApiError } from "@crm/contracts";
import type { MiddlewareHandler } from "hono";
import { gatewayConfig } from "./config";
import type { GatewayAppEnv } from "./env";

/** `localhost` and its subdomains, the 127.0.0.0/8 block and `[::1]`: names that only ever mean this machine. */
export function isLoopbackHost(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, "");
  return name === "localhost" || name.endsWith(".localhost") || name === "[::1]" || /^127(?:\.\d{1,3}){3}$/.test(name);
}

/**
 * The local stack (DEV_TOOLS on) answers loopback host names only. A page on another site can
 * rebind its own DNS name to 127.0.0.1 and then read the stack as same-origin (DNS rebinding); its
 * requests still carry its name as Host, and the seed route alone hands out every demo key and
 * password. A deployment (DEV_TOOLS off) is untouched.
 */
export const loopbackHostsOnly: MiddlewareHandler<GatewayAppEnv> = async (c, next) => {
  if (gatewayConfig(c.env).devTools) {
    // An HTTP request always names its host; one handed over in process (tests) is read from its URL.
    const host = c.req.header("host") ?? new URL(c.req.url).host;
    if (host !== lastLoopbackHost) {
      if (!isLoopbackHost(URL.parse(`http://${host}`)?.hostname ?? ""))
        throw new ApiError("forbidden", "The local stack answers loopback host names only (localhost, 127.0.0.1, [::1])");
      lastLoopbackHost = host;
    }
  }
  await next();
};

/** The last Host header found loopback: a stack is reached by one name, so the parse runs once, not per request. */
let lastLoopbackHost: string | undefined;
