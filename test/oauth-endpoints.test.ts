import { scopes } from "@crm/contracts";
import { control } from "@crm/db";
import { eq } from "drizzle-orm";
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from "jose";
import * as oauth from "oauth4webapi";
import { describe, expect, it, vi } from "vitest";
import { secretHash } from "../workers/gateway/src/identity/identity-secret";
import { createOrganization } from "./fixtures";
import {
  apiResource,
  authorizationServer,
  clientAddress,
  clientOptions,
  codeFlow,
  createConfidentialApp,
  db,
  gatewayFetch,
  mcpResource,
  origin,
  registerPublicClient,
  signedInUser,
  tokenError,
} from "./oauth-client";

const jwks = async () => createLocalJWKSet(await (await gatewayFetch()(`${origin}/.well-known/jwks.json`)).json());

async function grantRevoked(grantId: string) {
  const [grant] = await db().select().from(control.oauthGrants).where(eq(control.oauthGrants.id, grantId));
  return grant?.revokedAt !== null;
}

describe("client credentials", () => {
  it("give an app installed in an organization an app token for it, within the installation's scopes", async () => {
    const { organizationId } = await createOrganization();
    const app = await createConfidentialApp({ installations: [{ organizationId, scopes: ["crm:records:read", "tasks:read"] }] });
    const as = await authorizationServer();
    const grant = async (parameters: Record<string, string>) =>
      oauth.processClientCredentialsResponse(
        as,
        app.client,
        await oauth.clientCredentialsGrantRequest(as, app.client, app.auth, parameters, clientOptions()),
      );
    const tokens = await grant({});
    expect(tokens.refresh_token).toBeUndefined();
    expect(tokens.scope).toBe("crm:records:read tasks:read");
    const { payload } = await jwtVerify(tokens.access_token, await jwks(), {
      issuer: origin,
      audience: apiResource,
      typ: "at+jwt",
    });
    expect(payload).toMatchObject({
      sub: app.client.client_id,
      client_id: app.client.client_id,
      act: "app",
      org: organizationId,
    });

    expect((await grant({ scope: "tasks:read" })).scope).toBe("tasks:read");
    expect(await tokenError(grant({ scope: "crm:records:write" }))).toEqual({ error: "invalid_scope", status: 400 });
    // An empty scope is a request for nothing, answered as the authorization endpoint answers it.
    for (const scope of ["", " "])
      expect(await tokenError(grant({ scope })), JSON.stringify(scope)).toEqual({ error: "invalid_scope", status: 400 });
    expect(await tokenError(grant({ resource: "https://elsewhere.example/api" }))).toEqual({
      error: "invalid_target",
      status: 400,
    });
    const forMcp = await grant({ resource: mcpResource });
    expect((await jwtVerify(forMcp.access_token, await jwks(), { audience: mcpResource })).payload.aud).toBe(mcpResource);
  });

  it("are refused to an app not installed, to a public client, and with a wrong secret", async () => {
    const as = await authorizationServer();
    const notInstalled = await createConfidentialApp();
    const attempt = (client: oauth.Client, auth: oauth.ClientAuth) =>
      tokenError(
        oauth
          .clientCredentialsGrantRequest(as, client, auth, {}, clientOptions())
          .then((response) => oauth.processClientCredentialsResponse(as, client, response)),
      );
    expect(await attempt(notInstalled.client, notInstalled.auth)).toEqual({ error: "unauthorized_client", status: 400 });
    const publicClient = await registerPublicClient();
    expect(await attempt(publicClient.client, publicClient.auth)).toEqual({ error: "unauthorized_client", status: 400 });
    expect(await attempt(notInstalled.client, oauth.ClientSecretPost("not-the-secret"))).toEqual({
      error: "invalid_client",
      status: 401,
    });
  });

  it("ask an app installed in several organizations to name one", async () => {
    const [first, second] = [await createOrganization(), await createOrganization()];
    const app = await createConfidentialApp({
      installations: [
        { organizationId: first.organizationId, scopes: ["tasks:read"] },
        { organizationId: second.organizationId, scopes: ["notes:read"] },
      ],
    });
    const as = await authorizationServer();
    const grant = async (parameters: Record<string, string>) =>
      oauth.processClientCredentialsResponse(
        as,
        app.client,
        await oauth.clientCredentialsGrantRequest(as, app.client, app.auth, parameters, clientOptions()),
      );
    expect(await tokenError(grant({}))).toEqual({ error: "invalid_request", status: 400 });
    const tokens = await grant({ organization_id: second.organizationId });
    expect(tokens.scope).toBe("notes:read");
    expect((await jwtVerify(tokens.access_token, await jwks())).payload.org).toBe(second.organizationId);
  });
});

describe("the token endpoint", () => {
  const post = (body: BodyInit, headers: Record<string, string> = { "content-type": "application/x-www-form-urlencoded" }) =>
    gatewayFetch()(`${origin}/oauth/token`, { method: "POST", headers, body });

  it("answers RFC 6749 errors: unsupported grant type, wrong content type, repeated parameter", async () => {
    const app = await createConfidentialApp();
    const unsupported = await post(new URLSearchParams({ grant_type: "password", client_id: app.client.client_id }));
    expect(unsupported.status).toBe(400);
    expect(await unsupported.json()).toMatchObject({ error: "unsupported_grant_type" });
    const json = await post(JSON.stringify({ grant_type: "client_credentials" }), { "content-type": "application/json" });
    expect(await json.json()).toMatchObject({ error: "invalid_request" });
    const repeated = await post("grant_type=client_credentials&grant_type=authorization_code");
    expect(await repeated.json()).toMatchObject({
      error: "invalid_request",
      error_description: expect.stringContaining("repeated"),
    });
    const oversized = await post(`grant_type=client_credentials&padding=${"x".repeat(20_000)}`);
    expect(oversized.status).toBe(400);
    expect(await oversized.json()).toMatchObject({ error: "invalid_request" });
  });

  it("answers other methods than POST with 405 and Allow", async () => {
    for (const path of ["/oauth/token", "/oauth/register", "/oauth/revoke"]) {
      const response = await gatewayFetch()(`${origin}${path}`);
      expect(response.status).toBe(405);
      expect(response.headers.get("allow")).toBe("POST");
    }
  });

  it.each(["/oauth/token", "/oauth/revoke"])(
    "checks at most 60 of 70 parallel wrong client secrets at %s from one address",
    async (path) => {
      const app = await createConfidentialApp();
      const fetchFrom = gatewayFetch(clientAddress());
      const basic = `Basic ${btoa(`${app.client.client_id}:wrong-secret`)}`;
      const body = path === "/oauth/token" ? "grant_type=client_credentials" : "token=anything";
      const answers = await Promise.all(
        Array.from({ length: 70 }, () =>
          fetchFrom(`${origin}${path}`, {
            method: "POST",
            headers: { "content-type": "application/x-www-form-urlencoded", authorization: basic },
            body,
          }),
        ),
      );
      const statuses = answers.map((answer) => answer.status);
      expect(statuses.filter((status) => status === 401)).toHaveLength(60);
      expect(statuses.filter((status) => status === 429)).toHaveLength(10);
    },
  );

  it("limits each client address to 60 requests a minute", async () => {
    const address = clientAddress();
    const statuses: number[] = [];
    for (let i = 0; i < 61; i++) {
      const response = await gatewayFetch(address)(`${origin}/oauth/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: "grant_type=client_credentials&client_id=cli_nobody",
      });
      statuses.push(response.status);
      if (response.status === 429) {
        expect(response.headers.get("retry-after")).toMatch(/^\d+$/);
        expect(await response.json()).toMatchObject({ error: "rate_limited" });
      }
    }
    expect(statuses.slice(0, 60).every((status) => status === 401)).toBe(true);
    expect(statuses[60]).toBe(429);
    // Another address is not affected.
    const other = await gatewayFetch()(`${origin}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "grant_type=client_credentials&client_id=cli_nobody",
    });
    expect(other.status).toBe(401);
  });
});

describe("dynamic client registration (RFC 7591)", () => {
  const register = (metadata: unknown, address = clientAddress()) =>
    gatewayFetch(address)(`${origin}/oauth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(metadata),
    });

  it("registers a public client and answers 201 with its information", async () => {
    const { client } = await registerPublicClient("https://mcp-client.example/callback");
    expect(client.client_id).toMatch(/^cli_/);
    expect(client).toMatchObject({
      token_endpoint_auth_method: "none",
      redirect_uris: ["https://mcp-client.example/callback"],
      grant_types: ["authorization_code", "refresh_token"],
    });
    expect(client).not.toHaveProperty("client_secret");
  });

  it("refuses redirect URIs that are not https (or http on loopback), have a fragment, or are not URLs", async () => {
    for (const uri of [
      "http://app.example/callback",
      "https://app.example/callback#fragment",
      "javascript:alert(1)",
      "/relative",
      "custom-scheme://callback",
    ]) {
      const response = await register({ redirect_uris: [uri], token_endpoint_auth_method: "none" });
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ error: "invalid_redirect_uri" });
    }
    for (const uri of ["http://localhost:9999/cb", "http://[::1]:7777/cb", "http://127.0.0.1/cb"]) {
      expect((await register({ redirect_uris: [uri] })).status).toBe(201);
    }
  });

  it("registers a confidential client for client_secret_basic or client_secret_post, its secret shown once", async () => {
    for (const method of ["client_secret_basic", "client_secret_post"]) {
      const response = await register({ redirect_uris: ["https://app.example/cb"], token_endpoint_auth_method: method });
      expect(response.status).toBe(201);
      const client = await response.json<Record<string, unknown>>();
      expect(client).toMatchObject({
        client_id: expect.stringMatching(/^cli_/),
        client_secret: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
        client_secret_expires_at: 0,
        token_endpoint_auth_method: method,
        grant_types: ["authorization_code", "refresh_token"],
      });
      const [stored] = await db()
        .select()
        .from(control.oauthClients)
        .where(eq(control.oauthClients.id, client.client_id as string));
      expect(stored).toMatchObject({ type: "confidential", registeredVia: "dynamic" });
      expect(stored?.secretHash).toBe(await secretHash(client.client_secret as string));
    }
    const credentials = await register({
      redirect_uris: ["https://app.example/cb"],
      token_endpoint_auth_method: "client_secret_basic",
      grant_types: ["client_credentials"],
    });
    expect(await credentials.json()).toEqual({
      error: "invalid_client_metadata",
      error_description: expect.stringContaining("client_credentials needs an app installed in an organization"),
    });
  });

  it("refuses malformed metadata with the reason", async () => {
    for (const clientName of ["Acme\u202eredaeR", "Acme\u2066x", "Acme\u200bReader", "Acme\u0085"]) {
      const named = await register({ redirect_uris: ["https://app.example/cb"], client_name: clientName });
      expect(await named.json(), JSON.stringify(clientName)).toMatchObject({
        error: "invalid_client_metadata",
        error_description: expect.stringContaining("client_name"),
      });
    }
    const unknownMethod = await register({
      redirect_uris: ["https://app.example/cb"],
      token_endpoint_auth_method: "private_key_jwt",
    });
    expect(await unknownMethod.json()).toMatchObject({
      error: "invalid_client_metadata",
      error_description: expect.stringContaining("token_endpoint_auth_method"),
    });
    expect(await (await register({ redirect_uris: [] })).json()).toMatchObject({ error: "invalid_redirect_uri" });
    expect(await (await register("not an object")).json()).toMatchObject({ error: "invalid_client_metadata" });
    const notJson = await gatewayFetch()(`${origin}/oauth/register`, {
      method: "POST",
      body: "{",
      headers: { "content-type": "application/json" },
    });
    expect(await notJson.json()).toMatchObject({ error: "invalid_client_metadata" });
    const implicit = await register({ redirect_uris: ["https://app.example/cb"], grant_types: ["implicit"] });
    expect(await implicit.json()).toMatchObject({ error: "invalid_client_metadata" });
  });
});

describe("revocation (RFC 7009)", () => {
  it("revokes the grant behind a refresh token: refresh stops at once", async () => {
    const user = await signedInUser();
    const registered = await registerPublicClient();
    const as = await authorizationServer();
    const { tokens } = await codeFlow(registered, user.cookie);
    const { payload } = await jwtVerify(tokens.access_token, await jwks());
    const response = await oauth.revocationRequest(
      as,
      registered.client,
      registered.auth,
      tokens.refresh_token as string,
      clientOptions(),
    );
    await oauth.processRevocationResponse(response);
    expect(await grantRevoked(payload.grant_id as string)).toBe(true);
    const refreshed = oauth
      .refreshTokenGrantRequest(as, registered.client, registered.auth, tokens.refresh_token as string, clientOptions())
      .then((refresh) => oauth.processRefreshTokenResponse(as, registered.client, refresh));
    expect(await tokenError(refreshed)).toEqual({ error: "invalid_grant", status: 400 });
  });

  it("revokes the grant behind an access token", async () => {
    const user = await signedInUser();
    const registered = await registerPublicClient();
    const as = await authorizationServer();
    const { tokens } = await codeFlow(registered, user.cookie);
    const { payload } = await jwtVerify(tokens.access_token, await jwks());
    await oauth.processRevocationResponse(
      await oauth.revocationRequest(as, registered.client, registered.auth, tokens.access_token, {
        ...clientOptions(),
        additionalParameters: { token_type_hint: "access_token" },
      }),
    );
    expect(await grantRevoked(payload.grant_id as string)).toBe(true);
  });

  it("answers 200 for unknown tokens and for another client's tokens, revoking nothing of theirs", async () => {
    const user = await signedInUser();
    const owner = await registerPublicClient();
    const other = await registerPublicClient();
    const as = await authorizationServer();
    const { tokens } = await codeFlow(owner, user.cookie);
    const { payload } = await jwtVerify(tokens.access_token, await jwks());
    for (const token of ["not-a-token", tokens.refresh_token as string, tokens.access_token]) {
      const response = await oauth.revocationRequest(as, other.client, other.auth, token, clientOptions());
      expect(response.status).toBe(200);
    }
    expect(await grantRevoked(payload.grant_id as string)).toBe(false);
  });
});

describe("discovery documents", () => {
  it("publish RFC 8414 metadata: issuer = origin, S256 only, grant types, endpoints, the API's scopes", async () => {
    const as = await authorizationServer();
    expect(as).toMatchObject({
      issuer: origin,
      authorization_endpoint: `${origin}/oauth/authorize`,
      token_endpoint: `${origin}/oauth/token`,
      registration_endpoint: `${origin}/oauth/register`,
      revocation_endpoint: `${origin}/oauth/revoke`,
      jwks_uri: `${origin}/.well-known/jwks.json`,
      code_challenge_methods_supported: ["S256"],
      grant_types_supported: ["authorization_code", "refresh_token", "client_credentials"],
      response_types_supported: ["code"],
      authorization_response_iss_parameter_supported: true,
    });
    expect(as.scopes_supported).toEqual([...scopes]);
  });

  it("publish RFC 9728 protected-resource metadata for the REST API and the MCP endpoint", async () => {
    for (const resource of [apiResource, mcpResource]) {
      const identifier = new URL(resource);
      const document = await oauth.processResourceDiscoveryResponse(
        identifier,
        await oauth.resourceDiscoveryRequest(identifier, clientOptions()),
      );
      expect(document).toMatchObject({ resource, authorization_servers: [origin], bearer_methods_supported: ["header"] });
      expect(document.scopes_supported).toEqual([...scopes]);
    }
    const root = await (await gatewayFetch()(`${origin}/.well-known/oauth-protected-resource`)).json();
    expect(root).toMatchObject({ resource: apiResource });
  });

  it("publish the JWKS: public ES256 keys, a retired kid kept while its tokens live", async () => {
    const user = await signedInUser();
    const registered = await registerPublicClient();
    const { tokens: before } = await codeFlow(registered, user.cookie);
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() });
    const rotation = await gatewayFetch()(`${origin}/__dev/oauth/rotate-signing-key`, { method: "POST" });
    const { kid: newKid } = await rotation.json<{ kid: string }>();
    // Published at once, it signs only after the JWKS's cache lifetime (60 s) has passed.
    const published = await (await gatewayFetch()(`${origin}/.well-known/jwks.json`)).json<{ keys: { kid: string }[] }>();
    expect(published.keys.map((key) => key.kid)).toContain(newKid);
    const { tokens: meanwhile } = await codeFlow(registered, user.cookie);
    expect(decodeProtectedHeader(meanwhile.access_token).kid).not.toBe(newKid);
    vi.setSystemTime(Date.now() + 61_000);
    const { tokens: after } = await codeFlow(registered, user.cookie);
    vi.useRealTimers();
    expect(decodeProtectedHeader(after.access_token).kid).toBe(newKid);
    expect(decodeProtectedHeader(before.access_token).kid).not.toBe(newKid);
    const document = await (await gatewayFetch()(`${origin}/.well-known/jwks.json`)).json<{ keys: Record<string, unknown>[] }>();
    const kids = document.keys.map((key) => key.kid);
    expect(kids).toContain(newKid);
    expect(kids).toContain(decodeProtectedHeader(before.access_token).kid);
    for (const key of document.keys) {
      expect(key).toMatchObject({ kty: "EC", crv: "P-256", alg: "ES256", use: "sig" });
      expect(key).not.toHaveProperty("d");
    }
    await jwtVerify(before.access_token, await jwks());
    await jwtVerify(after.access_token, await jwks());
  });
});
