import { exports } from "cloudflare:workers";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { Client as LegacyClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as LegacyTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import { expect } from "vitest";

/**
 * The two official MCP clients, connected to the gateway under test inside workerd (no port): the
 * SDK's v2 client negotiating 2026-07-28, and its 1.x client speaking the 2025-11-25 handshake.
 */

export const mcpOrigin = "http://127.0.0.1:8787";
export const mcpUrl = `${mcpOrigin}/mcp`;

const gateway = (exports as unknown as { default: Fetcher }).default;

/** Each client from an address of its own, as `call()` does: the window of failed authentications is per client. */
export const clientAddress = () => `2001:db8:${crypto.randomUUID().slice(0, 4)}:${crypto.randomUUID().slice(0, 4)}::1`;

/** Requests to `worker` (the gateway, or a region's Worker for its regional MCP endpoint), as a client's fetch. */
export const fetchVia = (worker: Fetcher) => (input: string | URL | Request, init?: RequestInit) =>
  worker.fetch(new Request(input, init));

export const gatewayFetch = fetchVia(gateway);

function headersFor(token: string | undefined, extra: Record<string, string>) {
  return { "cf-connecting-ip": clientAddress(), ...(token ? { authorization: `Bearer ${token}` } : {}), ...extra };
}

export type McpClient = Pick<Client, "listTools" | "callTool" | "close"> & { protocolVersion: () => string | undefined };

/** The v2 client, `auto` negotiation: 2026-07-28 against this server. */
export async function modernClient(
  token?: string,
  headers: Record<string, string> = {},
  url = mcpUrl,
  via = gateway,
): Promise<McpClient> {
  const client = new Client({ name: "crm-test-modern", version: "1.0.0" }, { versionNegotiation: { mode: "auto" } });
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    fetch: fetchVia(via),
    requestInit: { headers: headersFor(token, headers) },
  });
  await client.connect(transport);
  return Object.assign(client, { protocolVersion: () => client.getNegotiatedProtocolVersion() });
}

/** The 1.x client: the 2025-11-25 `initialize` handshake. Its schema validator is the Workers one (no code generation). */
export async function legacyClient(
  token?: string,
  headers: Record<string, string> = {},
  url = mcpUrl,
  via = gateway,
): Promise<McpClient> {
  const client = new LegacyClient(
    { name: "crm-test-legacy", version: "1.0.0" },
    { jsonSchemaValidator: new CfWorkerJsonSchemaValidator() },
  );
  const transport = new LegacyTransport(new URL(url), {
    fetch: fetchVia(via),
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

/** A tool result as the tests read it (both clients' result types have these members). */
export interface ToolResult {
  content?: unknown;
  structuredContent?: unknown;
  isError?: boolean;
}

/** The structured content of a successful result, which its text content repeats. */
export function structured<T>(result: ToolResult): T {
  if (result.isError) throw new Error(`tool failed: ${JSON.stringify(result.content)}`);
  const [text] = result.content as { type: string; text: string }[];
  expect(JSON.parse(text?.text ?? "null")).toEqual(result.structuredContent);
  return result.structuredContent as T;
}

/** The REST error body a failed call carries as its text, the result marked `isError`. */
export function toolError(result: ToolResult): {
  error: { code: string; message: string; requestId: string; details?: unknown };
} {
  expect(result.isError, JSON.stringify(result.content)).toBe(true);
  const [text] = result.content as { type: string; text: string }[];
  return JSON.parse(text?.text ?? "null");
}

/** The text of a result the SDK itself produced (an argument that fails the input schema). */
export const resultText = (result: ToolResult) => (result.content as { text: string }[])[0]?.text ?? "";

/**
 * One `tools/call` as a single 2025-11-25 POST, no handshake (the endpoint is stateless): what the
 * catalogue-wide checks use, one request per operation.
 */
export async function rawToolCall(token: string, name: string, args: Record<string, unknown>): Promise<ToolResult> {
  const response = await rawMcp(
    JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } }),
    {
      token,
      headers: { "mcp-protocol-version": "2025-11-25" },
    },
  );
  expect(response.status).toBe(200);
  return (await jsonRpcMessage(response)).result as ToolResult;
}

/** The one JSON-RPC message of a response, whether it came as JSON or as a one-event SSE stream. */
export async function jsonRpcMessage(
  response: Response,
): Promise<{ result?: unknown; error?: { code: number; message: string } }> {
  const text = await response.text();
  if (!(response.headers.get("content-type") ?? "").startsWith("text/event-stream")) return JSON.parse(text);
  const data = text.split("\n").find((line) => line.startsWith("data: "));
  return JSON.parse(data?.slice("data: ".length) ?? "null");
}
