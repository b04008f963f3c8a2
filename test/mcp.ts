import { exports } from "cloudflare:workers";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { Client as LegacyClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as LegacyTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";

/**
 * The two official MCP clients, connected to the gateway under test inside workerd (no port): the
 * SDK's v2 client negotiating 2026-07-28, and its 1.x client speaking the 2025-11-25 handshake.
 */

export const mcpOrigin = "http://127.0.0.1:8787";
export const mcpUrl = `${mcpOrigin}/mcp`;

const gateway = (exports as unknown as { default: Fetcher }).default;

/** Each client from an address of its own, as `call()` does: the window of failed authentications is per client. */
export const clientAddress = () => `2001:db8:${crypto.randomUUID().slice(0, 4)}:${crypto.randomUUID().slice(0, 4)}::1`;

export const gatewayFetch = (input: string | URL | Request, init?: RequestInit) => gateway.fetch(new Request(input, init));

function headersFor(token: string | undefined, extra: Record<string, string>) {
  return { "cf-connecting-ip": clientAddress(), ...(token ? { authorization: `Bearer ${token}` } : {}), ...extra };
}

export type McpClient = Pick<Client, "listTools" | "callTool" | "close"> & { protocolVersion: () => string | undefined };

/** The v2 client, `auto` negotiation: 2026-07-28 against this server. */
export async function modernClient(token?: string, headers: Record<string, string> = {}, url = mcpUrl): Promise<McpClient> {
  const client = new Client({ name: "crm-test-modern", version: "1.0.0" }, { versionNegotiation: { mode: "auto" } });
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    fetch: gatewayFetch,
    requestInit: { headers: headersFor(token, headers) },
  });
  await client.connect(transport);
  return Object.assign(client, { protocolVersion: () => client.getNegotiatedProtocolVersion() });
}

/** The 1.x client: the 2025-11-25 `initialize` handshake. Its schema validator is the Workers one (no code generation). */
export async function legacyClient(token?: string, headers: Record<string, string> = {}, url = mcpUrl): Promise<McpClient> {
  const client = new LegacyClient(
    { name: "crm-test-legacy", version: "1.0.0" },
    { jsonSchemaValidator: new CfWorkerJsonSchemaValidator() },
  );
  const transport = new LegacyTransport(new URL(url), {
    fetch: gatewayFetch,
    requestInit: { headers: headersFor(token, headers) },
  });
  await client.connect(transport);
  return Object.assign(client as unknown as McpClient, { protocolVersion: () => transport.protocolVersion });
}

export const clients = { "v2 client at 2026-07-28": modernClient, "1.x client at 2025-11-25": legacyClient } as const;

/** A raw JSON-RPC POST, for what no well-behaved client sends. */
export function rawMcp(body: string, init: { token?: string; headers?: Record<string, string>; method?: string } = {}) {
  return gatewayFetch(mcpUrl, {
    method: init.method ?? "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...headersFor(init.token, init.headers ?? {}),
    },
    ...(init.method === "GET" || init.method === "DELETE" ? {} : { body }),
  });
}
