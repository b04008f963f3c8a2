import type { Hono } from "hono";
import { regionConfig } from "./config";
import type { AppEnv } from "./env";

/**
 * The only public paths of a regional Worker (DESIGN.md section 11): MCP clients configured with a
 * region's hostname before the universal gateway existed keep working. The gateway answers them;
 * every other path of a region still needs a context the gateway signed.
 */
export const gatewayPaths = [
  "/mcp",
  "/.well-known/oauth-protected-resource",
  "/.well-known/oauth-protected-resource/mcp",
  "/.well-known/oauth-authorization-server",
] as const;

/**
 * The request as the gateway should see it: the same method, query, headers (`Authorization`, the MCP
 * session and protocol-version headers, `Origin`) and body, at the gateway's public origin. The origin
 * is the gateway's because its documents and challenges name it (the issuer, the protected resource a
 * token is minted for), so a client is sent to the one authorization server whichever door it knocked on.
 */
export function gatewayRequest(request: Request, gatewayOrigin: string): Request {
  const incoming = new URL(request.url);
  const target = new URL(`${incoming.pathname}${incoming.search}`, gatewayOrigin);
  // The body streams through: the gateway reads what it needs (1 MiB at most, then 413), nothing is held here.
  const forwarded = new Request(target, request);
  // The gateway's DNS-rebinding check reads Host: it names the gateway now, not the region.
  forwarded.headers.set("host", target.host);
  return forwarded;
}

/** Adds the forwarded paths to a region's app, every method (the gateway answers 405 where it must). */
export function routeToGateway(app: Hono<AppEnv>): void {
  for (const path of gatewayPaths) {
    app.all(path, (c) => c.env.GATEWAY.fetch(gatewayRequest(c.req.raw, regionConfig(c.env).publicOrigin)));
  }
}
