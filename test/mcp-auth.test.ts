import { discoverOAuthProtectedResourceMetadata, extractWWWAuthenticateParams } from "@modelcontextprotocol/client";
import * as oauth from "oauth4webapi";
import { describe, expect, it } from "vitest";
import { createOrganization } from "./fixtures";
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
    expect(response.headers.get("www-authenticate")).toBe(`Bearer resource_metadata="${metadataUrl}"`);
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
      expect(response.headers.get("www-authenticate")).toBe(`Bearer resource_metadata="${metadataUrl}", error="invalid_token"`);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe("invalid_token");
    }
    const underBase = await gatewayFetch(`${mcpOrigin}/api/v1/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: initialize,
    });
    expect(underBase.status).toBe(401);
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
    expect(((await rest.json()) as { error: { code: string } }).error.code).toBe("invalid_token");
  });

  it("a token for <origin>/api/v1 works on REST and is refused on MCP", async () => {
    const { accessToken } = await appToken(apiResource);
    expect((await call("/workspaces", { key: accessToken })).status).toBe(200);
    const response = await rawMcp(initialize, { token: accessToken });
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toContain('error="invalid_token"');
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
