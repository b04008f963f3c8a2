import { env } from "cloudflare:test";
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { gatewayPaths, gatewayRequest } from "../workers/api/src/gateway-forward";

/**
 * The regional Workers' public MCP and OAuth discovery paths (DESIGN.md section 11): a request to a
 * region reaches the gateway over the region's service binding and is answered as the gateway
 * answers it at its own origin (`PUBLIC_ORIGIN` in vitest.config.ts).
 */
const gatewayOrigin = "http://127.0.0.1:8787";
const gateway = (exports as unknown as { default: Fetcher }).default;
const regions = { us: env.API_US, eu: env.API_EU };

const viaRegion = (region: keyof typeof regions, path: string, init?: RequestInit) =>
  regions[region].fetch(`https://mcp.${region}.crm.test${path}`, init);
const direct = (path: string, init?: RequestInit) => gateway.fetch(`${gatewayOrigin}${path}`, init);

async function expectError(response: Response, status: number, code: string) {
  expect(response.status).toBe(status);
  expect(((await response.json()) as { error: { code: string } }).error.code).toBe(code);
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
