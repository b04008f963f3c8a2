import { scopes } from "@crm/contracts";
import { discoverOAuthProtectedResourceMetadata, extractWWWAuthenticateParams } from "@modelcontextprotocol/client";
import * as oauth from "oauth4webapi";
import { describe, expect, it } from "vitest";
import { errorOf } from "./crm";
import { createKey, createOrganization } from "./fixtures";
import { clients, gatewayFetch, jsonRpcMessage, mcpOrigin, mcpUrl, rawMcp, structured } from "./mcp";
import { apiResource, authorizationServer, clientOptions, createConfidentialApp, mcpResource } from "./oauth-client";
import { call, cast } from "./stack";

/** Credentials on the MCP endpoint: the same as REST, each OAuth token for its own resource (RFC 8707). */

const initialize = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "crm-test", version: "1.0.0" } },
});
const metadataUrl = `${mcpOrigin}/.well-known/oauth-protected-resource/mcp`;
/** The scope the 401 challenge asks a client to request by default: every read scope. */
const readScopes = scopes.filter((scope) => scope.endsWith(":read")).join(" ");

/** A client-credentials token of an app installed in a fresh organization, for `resource`. */
async function appToken(resource: string) {
  const organization = await createOrganization({ workspaceCount: 1 });
  const app = await createConfidentialApp({
    installations: [{ organizationId: organization.organizationId, scopes: ["crm:records:read", "crm:metadata:read"] }],
  });
  const as = await authorizationServer();
  const response = await oauth.clientCredentialsGrantRequest(as, app.client, app.auth, { resource }, clientOptions());
  const tokens = await oauth.processClientCredentialsResponse(as, app.client, response);
  return { accessToken: tokens.access_token, clientId: app.client.client_id, organization };
}

describe("the 401 challenge", () => {
  it("points a client without a token at the MCP endpoint's RFC 9728 document, which names it and its server", async () => {
    const response = await rawMcp(initialize);
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toBe(`Bearer resource_metadata="${metadataUrl}", scope="${readScopes}"`);
    // What the official client reads from it, and the document it then fetches.
    expect(extractWWWAuthenticateParams(response).resourceMetadataUrl?.href).toBe(metadataUrl);
    const metadata = await discoverOAuthProtectedResourceMetadata(mcpUrl, { resourceMetadataUrl: metadataUrl }, gatewayFetch);
    expect(metadata).toMatchObject({ resource: mcpResource, authorization_servers: [mcpOrigin] });
  });

  it("tells a bad, expired or revoked key apart with error=invalid_token, on both paths of the endpoint", async () => {
    const { acme } = await cast();
    for (const token of ["garbage", acme.expiredKey as string, acme.revokedKey as string]) {
      const response = await rawMcp(initialize, { token });
      expect(response.status, token).toBe(401);
      expect(response.headers.get("www-authenticate")).toBe(
        `Bearer resource_metadata="${metadataUrl}", error="invalid_token", scope="${readScopes}"`,
      );
      expect((await errorOf(response)).code).toBe("invalid_token");
    }
    const underBase = await gatewayFetch(`${mcpOrigin}/api/v1/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: initialize,
    });
    expect(underBase.status).toBe(401);
  });

  it("names the resource a client reached: /api/v1/mcp is a resource of its own, with its own RFC 9728 document", async () => {
    const underBase = await gatewayFetch(`${mcpOrigin}/api/v1/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: initialize,
    });
    const underBaseMetadata = `${mcpOrigin}/.well-known/oauth-protected-resource/api/v1/mcp`;
    expect(underBase.headers.get("www-authenticate")).toBe(
      `Bearer resource_metadata="${underBaseMetadata}", scope="${readScopes}"`,
    );
    // What the official client checks: the document's resource is the URL it was configured with.
    const metadata = await discoverOAuthProtectedResourceMetadata(
      `${mcpOrigin}/api/v1/mcp`,
      { resourceMetadataUrl: underBaseMetadata },
      gatewayFetch,
    );
    expect(metadata).toMatchObject({ resource: `${mcpOrigin}/api/v1/mcp`, authorization_servers: [mcpOrigin] });
  });

  it("is what both clients meet without a credential: they do not connect", async () => {
    for (const connect of Object.values(clients)) await expect(connect()).rejects.toThrow();
  });
});

describe("OAuth access tokens on MCP and REST", () => {
  it("a token for <origin>/mcp works on MCP and is refused on REST", async () => {
    const { accessToken, clientId, organization } = await appToken(mcpResource);
    const client = await clients["v2 client at 2026-07-28"](accessToken);
    const whoami = structured(await client.callTool({ name: "auth_whoami", arguments: {} }));
    expect(whoami).toMatchObject({
      organizationId: organization.organizationId,
      actor: { type: "app", id: clientId },
      credential: { type: "oauth" },
      scopes: ["crm:records:read", "crm:metadata:read"],
    });
    const objects = await client.callTool({ name: "crm_objects_list", arguments: { workspaceId: organization.workspaceIds[0] } });
    expect(structured(objects)).toEqual({ objects: [] });
    await client.close();
    const rest = await call("/workspaces", { key: accessToken });
    expect(rest.status).toBe(401);
    expect((await errorOf(rest)).code).toBe("invalid_token");
  });

  it("a token for <origin>/api/v1 works on REST and is refused on MCP", async () => {
    const { accessToken } = await appToken(apiResource);
    expect((await call("/workspaces", { key: accessToken })).status).toBe(200);
    const response = await rawMcp(initialize, { token: accessToken });
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toContain('error="invalid_token"');
  });
});

describe("tokens of both MCP resources", () => {
  it("a token for <origin>/api/v1/mcp works on both MCP paths and is refused on REST; one for <origin>/mcp works under {base_url}", async () => {
    const { accessToken } = await appToken(`${mcpOrigin}/api/v1/mcp`);
    for (const url of [mcpUrl, `${mcpOrigin}/api/v1/mcp`]) {
      const client = await clients["v2 client at 2026-07-28"](accessToken, {}, url);
      expect(
        structured<{ credential: { type: string } }>(await client.callTool({ name: "auth_whoami", arguments: {} })).credential
          .type,
      ).toBe("oauth");
      await client.close();
    }
    expect((await call("/workspaces", { key: accessToken })).status).toBe(401);
    const forMcp = await appToken(mcpResource);
    const client = await clients["1.x client at 2025-11-25"](forMcp.accessToken, {}, `${mcpOrigin}/api/v1/mcp`);
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    await client.close();
  });
});

describe("scope step-up", () => {
  const recordsCreate = (workspaceId: string) =>
    JSON.stringify({
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "crm_objects_create", arguments: { workspaceId, nameSingular: "Lead", namePlural: "Leads" } },
    });

  it("a tool call outside an OAuth token's scopes is HTTP 403 insufficient_scope naming the scopes to ask for", async () => {
    const { accessToken, organization } = await appToken(mcpResource);
    const response = await rawMcp(recordsCreate(organization.workspaceIds[0] as string), {
      token: accessToken,
      headers: { "mcp-protocol-version": "2025-11-25" },
    });
    expect(response.status).toBe(403);
    expect(response.headers.get("www-authenticate")).toBe(
      `Bearer resource_metadata="${metadataUrl}", error="insufficient_scope", scope="crm:records:read crm:metadata:read crm:metadata:write"`,
    );
    expect((await errorOf(response)).code).toBe("insufficient_scope");
  });

  it("an API key without the scope still gets the tool's error result, since it cannot step up", async () => {
    const organization = await createOrganization({ workspaceCount: 1 });
    const { key } = await createKey({
      organizationId: organization.organizationId,
      ownerId: organization.userId,
      scopes: ["crm:metadata:read"],
    });
    const response = await rawMcp(recordsCreate(organization.workspaceIds[0] as string), {
      token: key,
      headers: { "mcp-protocol-version": "2025-11-25" },
    });
    expect(response.status).toBe(200);
    const { result } = (await jsonRpcMessage(response)) as { result: { isError: boolean; content: { text: string }[] } };
    expect(result.isError).toBe(true);
    expect(JSON.parse(result.content[0]?.text ?? "{}")).toMatchObject({ error: { code: "insufficient_scope" } });
  });
});

describe("the endpoint's capabilities and limits", () => {
  const ping = JSON.stringify({ jsonrpc: "2.0", id: 3, method: "ping" });

  it("does not declare tools.listChanged: a stateless endpoint never sends it", async () => {
    const { alice } = await cast();
    const response = await rawMcp(initialize, { token: alice.apiKey });
    const { result } = (await jsonRpcMessage(response)) as { result: { capabilities: { tools?: { listChanged?: boolean } } } };
    expect(result.capabilities.tools).toBeDefined();
    expect(result.capabilities.tools?.listChanged).not.toBe(true);
  });

  it("counts requests other than route tool calls in the caller's identity and key windows, and says so in RateLimit headers", async () => {
    const organization = await createOrganization({ workspaceCount: 1 });
    const headers = { "mcp-protocol-version": "2025-11-25" };
    const first = await rawMcp(ping, { token: organization.key, headers });
    expect(first.status).toBe(200);
    expect(first.headers.get("ratelimit-policy")).toMatch(/^"(identity|api_key)";q=180;w=60$/);
    expect(first.headers.get("ratelimit")).toMatch(/^"(identity|api_key)";r=179;t=\d+$/);
    const statuses: number[] = [];
    for (let start = 0; start < 180; start += 60) {
      const batch = await Promise.all(
        Array.from({ length: 60 }, (_, index) =>
          rawMcp(index % 2 === 0 ? ping : JSON.stringify({ jsonrpc: "2.0", id: 4, method: "tools/list" }), {
            token: organization.key,
            headers,
          }),
        ),
      );
      statuses.push(...batch.map((response) => response.status));
    }
    expect(statuses.filter((status) => status === 200)).toHaveLength(179);
    expect(statuses.filter((status) => status === 429)).toHaveLength(1);
  }, 60_000);

  it("counts a send preview, which runs no route, in the caller's own windows at no token cost", async () => {
    const organization = await createOrganization({ workspaceCount: 1 });
    const arguments_ = {
      workspaceId: organization.workspaceIds[0],
      mailbox: "sales@example.com",
      to: ["ada@customer.example"],
      subject: "Hi",
      text: "Hello",
    };
    const response = await rawMcp(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 6,
        method: "tools/call",
        params: { name: "inbox_conversations_compose", arguments: arguments_ },
      }),
      { token: organization.key, headers: { "mcp-protocol-version": "2025-11-25" } },
    );
    expect(response.status).toBe(200);
    expect(response.headers.get("ratelimit-policy")).toMatch(/^"(identity|api_key)";q=180;w=60$/);
    const { result } = (await jsonRpcMessage(response)) as { result: { structuredContent: { sent: boolean } } };
    expect(result.structuredContent.sent).toBe(false);
  });

  it("keys an app's identity window by organization: an installation's traffic does not spend another's", async () => {
    const [first, second] = await Promise.all([
      createOrganization({ workspaceCount: 1 }),
      createOrganization({ workspaceCount: 1 }),
    ]);
    const installation = (organizationId: string) => ({ organizationId, scopes: ["crm:metadata:read"] });
    const app = await createConfidentialApp({
      installations: [installation(first.organizationId), installation(second.organizationId)],
    });
    const as = await authorizationServer();
    const tokenIn = async (organizationId: string, resource: string) => {
      const parameters = { organization_id: organizationId, resource };
      const response = await oauth.clientCredentialsGrantRequest(as, app.client, app.auth, parameters, clientOptions());
      return (await oauth.processClientCredentialsResponse(as, app.client, response)).access_token;
    };
    const inFirst = await tokenIn(first.organizationId, mcpResource);
    const headers = { "mcp-protocol-version": "2025-11-25" };
    const pings = await Promise.all(Array.from({ length: 61 }, () => rawMcp(ping, { token: inFirst, headers })));
    expect(pings.every((response) => response.status === 200)).toBe(true);
    // In the second organization the app's identity window is untouched: the route's is the tightest.
    const rest = await call(`/crm/objects?workspaceId=${second.workspaceIds[0]}`, {
      key: await tokenIn(second.organizationId, apiResource),
    });
    expect(rest.status).toBe(200);
    expect(rest.headers.get("ratelimit")).toMatch(/^"route";r=119;t=\d+$/);
  });

  it("carries the RateLimit headers of a route tool call's windows on its HTTP answer", async () => {
    const organization = await createOrganization({ workspaceCount: 1 });
    const response = await rawMcp(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 5,
        method: "tools/call",
        params: { name: "crm_objects_list", arguments: { workspaceId: organization.workspaceIds[0] } },
      }),
      { token: organization.key, headers: { "mcp-protocol-version": "2025-11-25" } },
    );
    expect(response.status).toBe(200);
    expect(response.headers.get("ratelimit-policy")).toBe('"route";q=120;w=60');
    expect(response.headers.get("ratelimit")).toMatch(/^"route";r=119;t=\d+$/);
  });
});

describe("the endpoint under {base_url}", () => {
  it("answers /api/v1/mcp as /mcp", async () => {
    const { alice } = await cast();
    const client = await clients["1.x client at 2025-11-25"](alice.apiKey, {}, `${mcpOrigin}/api/v1/mcp`);
    const { tools } = await client.listTools();
    expect(tools.some((tool) => tool.name === "crm_objects_list")).toBe(true);
    await client.close();
  });

  it("serves the 2025-11-25 handshake to a plain POST", async () => {
    const { alice } = await cast();
    const response = await rawMcp(initialize, { token: alice.apiKey });
    expect(response.status).toBe(200);
    const message = (await jsonRpcMessage(response)) as { result: { protocolVersion: string; serverInfo: { name: string } } };
    expect(message.result.protocolVersion).toBe("2025-11-25");
    expect(message.result.serverInfo.name).toBe("crm-api");
  });
});
