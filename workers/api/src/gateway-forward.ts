import type { Hono } from "hono";
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

/** The gateway refuses MCP bodies over 1 MiB (413): one byte more is all it needs to see to say so. */
const forwardedBodyBytes = 1024 * 1024 + 1;

/**
 * The body, read before it is forwarded: the gateway often answers without reading it (a foreign
 * Origin, a missing key), and a body still streaming over the binding then fails in this isolate.
 * Reading stops past the gateway's limit, so a huge body costs no more than that here.
 */
async function bodyUpToLimit(body: ReadableStream<Uint8Array> | null): Promise<Uint8Array | null> {
  if (body === null) return null;
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  while (size < forwardedBodyBytes) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.byteLength;
  }
  await reader.cancel();
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/**
 * The request as the gateway should see it: the same method, query, headers (`Authorization`, the MCP
 * session and protocol-version headers, `Origin`) and body, at the gateway's public origin. The origin
 * is the gateway's because its documents and challenges name it (the issuer, the protected resource a
 * token is minted for), so a client is sent to the one authorization server whichever door it knocked on.
 */
export async function gatewayRequest(request: Request, gatewayOrigin: string): Promise<Request> {
  const incoming = new URL(request.url);
  const target = new URL(`${incoming.pathname}${incoming.search}`, gatewayOrigin);
  const headers = new Headers(request.headers);
  // The gateway's DNS-rebinding check reads Host: it names the gateway now, not the region.
  headers.set("host", target.host);
  // The framing of the client's body, not of the bytes forwarded (which may stop past the limit).
  headers.delete("content-length");
  headers.delete("transfer-encoding");
  return new Request(target, { method: request.method, headers, body: await bodyUpToLimit(request.body), redirect: "manual" });
}

/** Adds the forwarded paths to a region's app, every method (the gateway answers 405 where it must). */
export function routeToGateway(app: Hono<AppEnv>): void {
  for (const path of gatewayPaths) {
    app.all(path, async (c) => c.env.GATEWAY.fetch(await gatewayRequest(c.req.raw, c.env.PUBLIC_ORIGIN)));
  }
}
