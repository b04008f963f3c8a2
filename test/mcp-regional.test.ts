import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { gatewayPaths, gatewayRequest } from "../workers/api/src/gateway-forward";
import { errorOf } from "./crm";
import { clientAddress, clients, gatewayFetch, jsonRpcMessage, mcpOrigin, structured } from "./mcp";
import { cast } from "./stack";

/**
 * The regional Workers' public MCP and OAuth discovery paths (DESIGN.md section 11): a request to a
 * region reaches the gateway over the region's service binding and is answered as the gateway
 * answers it at its own origin (`PUBLIC_ORIGIN` in vitest.config.ts).
 */
const gatewayOrigin = mcpOrigin;
const regions = { us: env.API_US, eu: env.API_EU };
const regionalUrl = (region: keyof typeof regions, path: string) => `https://mcp.${region}.crm.test${path}`;

const viaRegion = (region: keyof typeof regions, path: string, init?: RequestInit) =>
  regions[region].fetch(regionalUrl(region, path), init);
const direct = (path: string, init?: RequestInit) => gatewayFetch(`${gatewayOrigin}${path}`, init);

async function expectError(response: Response, status: number, code: string) {
  expect(response.status).toBe(status);
  expect((await errorOf(response)).code).toBe(code);
}

describe("regional discovery paths", () => {
  for (const path of gatewayPaths.filter((candidate) => candidate !== "/mcp")) {
    it(`${path} is the gateway's document, byte for byte, in both regions`, async () => {
      const expected = await direct(path);
      expect(expected.status).toBe(200);
      const body = await expected.text();
      // The documents name the gateway: its issuer and resources, never the region's hostname.
      expect(body).toContain(gatewayOrigin);
      for (const region of ["us", "eu"] as const) {
        const forwarded = await viaRegion(region, path);
        expect(forwarded.status).toBe(200);
        expect(forwarded.headers.get("content-type")).toBe(expected.headers.get("content-type"));
        expect(forwarded.headers.get("x-request-id")).toMatch(/^req_/);
        expect(await forwarded.text()).toBe(body);
      }
    });
  }
});

describe("the regional /mcp", () => {
  for (const [name, connect] of Object.entries(clients)) {
    it(`is the gateway's endpoint for the ${name}: the same tools, and calls answered for the key's organization`, async () => {
      const { alice, acme, dave, globex } = await cast();
      const atGateway = await connect(alice.apiKey);
      const expected = (await atGateway.listTools()).tools.map((tool) => tool.name);
      await atGateway.close();
      // alice's organization is in us, dave's in eu: each region's endpoint serves either.
      for (const [region, user, organization] of [
        ["us", alice, acme],
        ["eu", alice, acme],
        ["eu", dave, globex],
      ] as const) {
        const client = await connect(user.apiKey, {}, regionalUrl(region, "/mcp"), regions[region]);
        expect(client.protocolVersion()).toBe(name.startsWith("v2") ? "2026-07-28" : "2025-11-25");
        expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(expected);
        const whoami = structured<{ organizationId: string }>(await client.callTool({ name: "auth_whoami", arguments: {} }));
        expect(whoami.organizationId).toBe(organization.id);
        const workspaces = structured<{ data: { id: string }[] }>(
          await client.callTool({ name: "workspaces_list", arguments: {} }),
        );
        expect(workspaces.data.map((workspace) => workspace.id).sort()).toEqual(
          organization.workspaces.map((workspace) => workspace.id).sort(),
        );
        await client.close();
      }
    });
  }

  const initialize = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "crm-test", version: "1.0.0" } },
  });
  /** An answer read whole, so that no body is left streaming while the next request runs. */
  const answered = async (response: Response) => ({
    status: response.status,
    headers: response.headers,
    body: await response.text(),
  });

  /** The same raw request to the gateway and through a region, each from a client address of its own. */
  async function both(init: { method?: string; headers?: Record<string, string>; body?: string }) {
    const request = () => ({
      method: init.method ?? "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "cf-connecting-ip": clientAddress(),
        ...init.headers,
      },
      body: init.body ?? null,
    });
    return {
      gateway: await answered(await direct("/mcp", request())),
      region: await answered(await viaRegion("us", "/mcp", request())),
    };
  }

  it("answers a request without a key with the gateway's challenge, naming the gateway's document", async () => {
    const { gateway, region } = await both({ body: initialize });
    expect(region.status).toBe(401);
    expect(gateway.status).toBe(401);
    expect(region.headers.get("www-authenticate")).toMatch(
      new RegExp(`^Bearer resource_metadata="${gatewayOrigin}/\\.well-known/oauth-protected-resource/mcp", scope="[^"]+"$`),
    );
    expect(region.headers.get("www-authenticate")).toBe(gateway.headers.get("www-authenticate"));
  });

  it("keeps the method: GET and DELETE are 405 there as at the gateway", async () => {
    const { alice } = await cast();
    for (const method of ["GET", "DELETE"]) {
      const { gateway, region } = await both({ method, headers: { authorization: `Bearer ${alice.apiKey}` } });
      expect(region.status, method).toBe(405);
      expect(region.headers.get("allow")).toBe(gateway.headers.get("allow"));
      expect(region.body).toBe(gateway.body);
    }
  });

  it("keeps the body: an oversized request is the gateway's 413, a large one is served", async () => {
    const { alice } = await cast();
    const authorization = `Bearer ${alice.apiKey}`;
    const padded = (bytes: number) =>
      JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/list", params: { _meta: { padding: "a".repeat(bytes) } } });
    const oversized = await both({ body: padded(1024 * 1024), headers: { authorization, "mcp-protocol-version": "2025-11-25" } });
    expect(oversized.region.status).toBe(413);
    expect(oversized.region.body).toBe(oversized.gateway.body);
    const large = await both({ body: padded(1000 * 1024), headers: { authorization, "mcp-protocol-version": "2025-11-25" } });
    expect(large.gateway.status).toBe(200);
    expect(large.region.status).toBe(200);
  });

  it("keeps Origin and the protocol-version header: the gateway judges them as if sent to it", async () => {
    const { alice } = await cast();
    const authorization = `Bearer ${alice.apiKey}`;
    const foreign = await both({ body: initialize, headers: { authorization, origin: "https://evil.example" } });
    expect(foreign.region.status).toBe(403);
    expect(foreign.region.body).toBe(foreign.gateway.body);
    const toolsList = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" });
    const unsupported = await both({ body: toolsList, headers: { authorization, "mcp-protocol-version": "1999-01-01" } });
    expect(unsupported.region.status).toBe(unsupported.gateway.status);
    expect(unsupported.region.status).toBeGreaterThanOrEqual(400);
    expect(unsupported.region.body).toBe(unsupported.gateway.body);
    const supported = await both({ body: toolsList, headers: { authorization, "mcp-protocol-version": "2025-11-25" } });
    expect(supported.region.status).toBe(200);
    const listed = (await jsonRpcMessage(new Response(supported.region.body, { headers: supported.region.headers }))).result as {
      tools: unknown[];
    };
    expect(listed.tools.length).toBeGreaterThan(0);
  });
});

describe("the rest of a region stays behind the gateway", () => {
  it("an API route without a signed context is still 401", async () => {
    await expectError(await viaRegion("us", "/api/v1/workspaces"), 401, "unauthorized");
    await expectError(await viaRegion("eu", "/api/v1/workspaces"), 401, "unauthorized");
  });

  it("only the exact paths are forwarded: the gateway's other routes are not reachable through a region", async () => {
    for (const path of ["/mcp/", "/mcp/tools", "/.well-known/jwks.json", "/oauth/token", "/console", "/api/v1/openapi.json"]) {
      await expectError(await viaRegion("us", path), 404, "not_found");
    }
  });
});

describe("the forwarded request (gatewayRequest)", () => {
  it("keeps method, query, credentials, MCP headers and body, at the gateway's origin", async () => {
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" });
    const incoming = new Request("https://mcp.us.crm.test/mcp?trace=1&x=%C3%A9", {
      method: "POST",
      headers: {
        host: "mcp.us.crm.test",
        authorization: "Bearer sk_test_123",
        "mcp-session-id": "session-1",
        "mcp-protocol-version": "2025-11-25",
        "last-event-id": "event-7",
        origin: "https://agent.example",
        accept: "application/json, text/event-stream",
        "content-type": "application/json",
      },
      body,
    });
    const forwarded = gatewayRequest(incoming, gatewayOrigin);
    expect(forwarded.method).toBe("POST");
    expect(forwarded.url).toBe("http://127.0.0.1:8787/mcp?trace=1&x=%C3%A9");
    expect(forwarded.headers.get("host")).toBe("127.0.0.1:8787");
    for (const header of [
      "authorization",
      "mcp-session-id",
      "mcp-protocol-version",
      "last-event-id",
      "origin",
      "accept",
      "content-type",
    ]) {
      expect(forwarded.headers.get(header)).toBe(incoming.headers.get(header));
    }
    expect(await forwarded.text()).toBe(body);
  });

  it("keeps a GET without a body, and a DELETE", async () => {
    const get = gatewayRequest(new Request("https://mcp.eu.crm.test/.well-known/oauth-authorization-server"), gatewayOrigin);
    expect(get.method).toBe("GET");
    expect(get.body).toBeNull();
    expect(get.url).toBe("http://127.0.0.1:8787/.well-known/oauth-authorization-server");
    const remove = gatewayRequest(new Request("https://mcp.eu.crm.test/mcp", { method: "DELETE" }), gatewayOrigin);
    expect(remove.method).toBe("DELETE");
  });
});
