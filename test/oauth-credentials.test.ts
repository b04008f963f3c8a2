import { env } from "cloudflare:test";
import { scopes as allScopes, catalogue } from "@crm/contracts";
import { control, newId } from "@crm/db";
import { eq } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { afterEach, describe, expect, it, vi } from "vitest";
import { type AccessTokenSubject, signAccessToken } from "../workers/gateway/src/identity/access-tokens";
import { activeSigningKey, jwksCacheMs, rotateSigningKey } from "../workers/gateway/src/identity/signing-keys";
import { revokedGrantsRefreshMs } from "../workers/gateway/src/pipeline/revoked-grants";
import { type ErrorBody, unique } from "./crm";
import { baseUrl, call, cast } from "./stack";

/**
 * OAuth access tokens on the REST routes (DESIGN.md section 3): ES256 JWTs verified against the
 * published keys, for this API's audience, bound to a grant that can be revoked. Tokens are minted
 * with the identity foundation's `signAccessToken` for grants written here, as the token endpoint
 * does for the grants it makes.
 */

const origin = new URL(baseUrl).origin;
const db = () => drizzle(env.CONTROL_DB);

interface Workspace {
  id: string;
  organizationId: string;
  name: string;
  role: string | null;
  isInheritedAccess: boolean;
}

async function newClient(): Promise<string> {
  const clientId = newId("cli");
  await db()
    .insert(control.oauthClients)
    .values({
      id: clientId,
      name: `Test app ${unique()}`,
      type: "confidential",
      secretHash: null,
      redirectUris: ["https://app.example/callback"],
      grantTypes: ["authorization_code", "refresh_token", "client_credentials"],
      registeredVia: "manual",
      createdAt: Date.now(),
    });
  return clientId;
}

interface GrantOptions {
  userId: string | null;
  organizationId: string | null;
  scopes?: readonly string[];
  audience?: string;
  issuer?: string;
  now?: number;
}

/** A grant of a fresh client and an access token for it, as the token endpoint would issue. */
async function grantToken(options: GrantOptions) {
  const clientId = await newClient();
  const grantId = newId("grt");
  const scopes = options.scopes ?? allScopes;
  const audience = options.audience ?? `${origin}/api/v1`;
  await db()
    .insert(control.oauthGrants)
    .values({
      id: grantId,
      clientId,
      userId: options.userId,
      organizationId: options.organizationId,
      scopes: [...scopes],
      resource: audience,
      createdAt: Date.now(),
    });
  const subject: AccessTokenSubject = {
    issuer: options.issuer ?? origin,
    audience,
    subject: options.userId ?? clientId,
    organizationId: options.organizationId,
    scopes,
    clientId,
    actor: options.userId ? "user" : "app",
    grantId,
  };
  const { accessToken } = await signAccessToken(db(), env.IDENTITY_SECRET, subject, options.now);
  return { accessToken, clientId, grantId };
}

const workspaces = async (token: string, headers: Record<string, string> = {}) => {
  const response = await call("/workspaces", { key: token, headers });
  return { response, body: (await response.json()) as { data: Workspace[] } & ErrorBody };
};

const base64Url = (value: unknown) => btoa(JSON.stringify(value)).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");

describe("OAuth access tokens on API routes", () => {
  it("a user token bound to an organization acts as its user there", async () => {
    const { alice, acme } = await cast();
    const { accessToken } = await grantToken({ userId: alice.id, organizationId: acme.id });
    const { response, body } = await workspaces(accessToken);
    expect(response.status).toBe(200);
    expect(body.data.map((workspace) => workspace.name).sort()).toEqual(["Sales", "Support"]);
    expect(body.data.find((workspace) => workspace.name === "Sales")?.role).toBe("owner");
  });

  it("refuses expired, tampered and foreign-signed tokens, alg none, another audience or issuer (401)", async () => {
    const { alice, acme } = await cast();
    const valid = await grantToken({ userId: alice.id, organizationId: acme.id });
    const [header = "", payload = "", signature = ""] = valid.accessToken.split(".");
    const claims = JSON.parse(atob(payload.replaceAll("-", "+").replaceAll("_", "/"))) as Record<string, unknown>;
    const { kid } = await activeSigningKey(db(), env.IDENTITY_SECRET);
    const otherKey = await generateKeyPair("ES256");
    const refused = {
      expired: (await grantToken({ userId: alice.id, organizationId: acme.id, now: Date.now() - 2 * 3600_000 })).accessToken,
      tampered: `${header}.${base64Url({ ...claims, sub: acme.users[1]?.id })}.${signature}`,
      "signed by another key under the real kid": await new SignJWT(claims)
        .setProtectedHeader({ alg: "ES256", kid, typ: "at+jwt" })
        .sign(otherKey.privateKey),
      "signed by an unpublished key": await new SignJWT(claims)
        .setProtectedHeader({ alg: "ES256", kid: `unknown-${unique()}`, typ: "at+jwt" })
        .sign(otherKey.privateKey),
      "alg none": `${base64Url({ alg: "none", kid, typ: "at+jwt" })}.${payload}.`,
      "HS256 keyed with the public key": await new SignJWT(claims)
        .setProtectedHeader({ alg: "HS256", kid, typ: "at+jwt" })
        .sign(new TextEncoder().encode(JSON.stringify(await exportJWK(otherKey.publicKey)))),
      "the MCP endpoint's audience": (await grantToken({ userId: alice.id, organizationId: acme.id, audience: `${origin}/mcp` }))
        .accessToken,
      "another issuer": (await grantToken({ userId: alice.id, organizationId: acme.id, issuer: "https://issuer.example" }))
        .accessToken,
    };
    for (const [name, token] of Object.entries(refused)) {
      const { response, body } = await workspaces(token);
      expect(response.status, name).toBe(401);
      expect(body.error.code, name).toBe("invalid_token");
      expect(response.headers.get("www-authenticate"), name).toContain('error="invalid_token"');
    }
  });

  it("403 insufficient_scope for a verified token with no scope this API knows, and per operation", async () => {
    const { alice, acme, sales } = await cast();
    const unknown = await grantToken({ userId: alice.id, organizationId: acme.id, scopes: ["profile", "email"] });
    const { response, body } = await workspaces(unknown.accessToken);
    expect(response.status).toBe(403);
    expect(body.error.code).toBe("insufficient_scope");

    const readOnly = await grantToken({ userId: alice.id, organizationId: acme.id, scopes: ["crm:records:read", "profile"] });
    const write = await call("/records", {
      method: "POST",
      key: readOnly.accessToken,
      json: { objectTypeId: "oty_x", fields: {} },
    });
    expect(write.status).toBe(403);
    expect(((await write.json()) as { error: { details: unknown } }).error.details).toEqual({
      requiredScope: "crm:records:write",
    });
    expect((await call(`/crm/objects?workspaceId=${sales.id}`, { key: readOnly.accessToken })).status).toBe(403);
  });

  it("a live token on a path no route serves is 404, whatever organization header it carries: only a dead one is 401 there", async () => {
    const { erin, acme } = await cast();
    const { accessToken } = await grantToken({ userId: erin.id, organizationId: null });
    const organizationHeaders: Record<string, string>[] = [{}, { "x-service-organization-id": acme.id }];
    for (const headers of organizationHeaders) {
      const response = await call("/no-such-thing", { key: accessToken, headers });
      expect(response.status, JSON.stringify(headers)).toBe(404);
    }
    expect((await call("/no-such-thing", { key: `${accessToken}x` })).status).toBe(401);
  });

  it("a token of a user in several organizations needs X-Service-Organization-Id, one of the user's", async () => {
    const { erin, initech, globex, acme } = await cast();
    const { accessToken } = await grantToken({ userId: erin.id, organizationId: null });

    const { response, body } = await workspaces(accessToken);
    expect(response.status).toBe(400);
    expect(body.error.code).toBe("organization_required");
    expect(body.error.details).toEqual(
      expect.arrayContaining([
        { id: initech.id, name: "Initech" },
        { id: globex.id, name: "Globex" },
      ]),
    );
    expect(body.error.details).toHaveLength(2);

    for (const organization of [initech, globex]) {
      const selected = await workspaces(accessToken, { "x-service-organization-id": organization.id });
      expect(selected.response.status, organization.name).toBe(200);
      expect(selected.body.data.map((workspace) => workspace.id)).toEqual(organization.workspaces.map(({ id }) => id));
      expect(selected.body.data.every((workspace) => workspace.organizationId === organization.id)).toBe(true);
    }
    // An organization she does not belong to, existing or not: the same 400, nothing revealed.
    for (const other of [acme.id, newId("org")]) {
      const mismatch = await workspaces(accessToken, { "x-service-organization-id": other });
      expect(mismatch.response.status).toBe(400);
      expect(mismatch.body.error.code).toBe("organization_mismatch");
    }
  });

  it("a token bound to one organization refuses another in X-Service-Organization-Id", async () => {
    const { erin, initech, globex } = await cast();
    const { accessToken } = await grantToken({ userId: erin.id, organizationId: initech.id });
    expect((await workspaces(accessToken, { "x-service-organization-id": initech.id })).response.status).toBe(200);
    const other = await workspaces(accessToken, { "x-service-organization-id": globex.id });
    expect(other.response.status).toBe(400);
    expect(other.body.error.code).toBe("organization_mismatch");
  });

  it("bad tokens count against the client's window of failed authentications", async () => {
    const ip = `2001:db8:${unique().slice(0, 4)}:${unique().slice(0, 4)}::1`;
    const { kid } = await activeSigningKey(db(), env.IDENTITY_SECRET);
    const forged = `${base64Url({ alg: "none", kid, typ: "at+jwt" })}.${base64Url({ sub: "usr_x" })}.`;
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 61; attempt++) {
      statuses.push((await call("/workspaces", { key: forged, headers: { "cf-connecting-ip": ip } })).status);
    }
    expect(statuses.slice(0, 60).every((status) => status === 401)).toBe(true);
    expect(statuses[60]).toBe(429);
  });
});

describe("what an isolate keeps and refreshes on a clock", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("stops its access tokens within the isolate's refresh of revoked grants, without a read per request", async () => {
    const { alice, acme } = await cast();
    const { accessToken, grantId } = await grantToken({ userId: alice.id, organizationId: acme.id });
    const start = Date.now();
    vi.useFakeTimers({ toFake: ["Date"], now: start });
    expect((await workspaces(accessToken)).response.status).toBe(200);

    await db().update(control.oauthGrants).set({ revokedAt: start }).where(eq(control.oauthGrants.id, grantId));
    // Still accepted right after: requests do not read the grant; the isolate's list is refreshed on a timer.
    expect((await workspaces(accessToken)).response.status).toBe(200);

    vi.setSystemTime(start + revokedGrantsRefreshMs);
    const { response, body } = await workspaces(accessToken);
    expect(response.status).toBe(401);
    expect(body.error.message).toContain("revoked");
  });

  it("refuses a token it accepted before once it has expired (the isolate's verified tokens do not outlive them)", async () => {
    const { alice, acme } = await cast();
    const start = Date.now();
    vi.useFakeTimers({ toFake: ["Date"], now: start });
    const { accessToken } = await grantToken({ userId: alice.id, organizationId: acme.id });
    expect((await workspaces(accessToken)).response.status).toBe(200);
    vi.setSystemTime(start + 3600_000 + 31_000);
    const { response, body } = await workspaces(accessToken);
    expect(response.status).toBe(401);
    expect(body.error.code).toBe("invalid_token");
  });

  it("accepts a token of a key rotated in since it loaded the keys (one reload, at most every 5 s)", async () => {
    const { alice, acme } = await cast();
    const start = Date.now();
    vi.useFakeTimers({ toFake: ["Date"], now: start });
    const before = await grantToken({ userId: alice.id, organizationId: acme.id });
    expect((await workspaces(before.accessToken)).response.status).toBe(200);

    vi.setSystemTime(start + 5_000);
    // A key signs once it has been published for a JWKS cache lifetime: this one was, as far as the
    // signer can tell (the regions refuse a gateway clock a minute ahead, so the clock stays here).
    await rotateSigningKey(db(), env.IDENTITY_SECRET, Date.now() - jwksCacheMs);
    const after = await grantToken({ userId: alice.id, organizationId: acme.id });
    expect(after.accessToken.split(".")[0]).not.toBe(before.accessToken.split(".")[0]);
    expect((await workspaces(after.accessToken)).response.status).toBe(200);
    // The retired key is still published: its tokens live out their hour.
    expect((await workspaces(before.accessToken)).response.status).toBe(200);
  });
});

describe("the OpenAPI document's OAuth scheme", () => {
  it("names the real endpoints and describes every scope in words", async () => {
    const document = (await (await call("/openapi.json")).json()) as {
      components: { securitySchemes: { ServiceOAuth: { flows: Record<string, Record<string, unknown>> } } };
    };
    const { authorizationCode, clientCredentials } = document.components.securitySchemes.ServiceOAuth.flows;
    expect(authorizationCode).toMatchObject({
      authorizationUrl: `${origin}/oauth/authorize`,
      tokenUrl: `${origin}/oauth/token`,
      refreshUrl: `${origin}/oauth/token`,
    });
    expect(clientCredentials).toMatchObject({ tokenUrl: `${origin}/oauth/token` });
    for (const flow of [authorizationCode, clientCredentials]) {
      const described = flow?.scopes as Record<string, string>;
      expect(Object.keys(described).sort()).toEqual([...allScopes].sort());
      for (const [scope, description] of Object.entries(described)) {
        // Words a person reads, not the scope's name spelled out again.
        expect(description, scope).toMatch(/^[A-Z][a-z]+[ ,]/);
        expect(description, scope).not.toContain(scope.replaceAll(":", " "));
      }
    }
  });
});

describe("OAuth access tokens on every bearer operation of the catalogue", () => {
  it("401 for a token of another audience, 403 insufficient_scope naming the scope a token lacks", async () => {
    const { alice, acme } = await cast();
    const mcpToken = (await grantToken({ userId: alice.id, organizationId: acme.id, audience: `${origin}/mcp` })).accessToken;
    const bearerOperations = catalogue.filter((operation) => operation.auth === "bearer");
    expect(bearerOperations.length).toBeGreaterThan(10);
    for (const operation of bearerOperations) {
      const name = `${operation.method.toUpperCase()} ${operation.path}`;
      // Both refusals come before the request is routed, so placeholder ids and no body will do.
      const request = (token: string) =>
        call(operation.path.replaceAll(/\{[^}]+\}/g, "zz_000000"), { method: operation.method.toUpperCase(), key: token });
      expect((await request(mcpToken)).status, name).toBe(401);
      if (!operation.scope) continue;
      const lacking = await grantToken({
        userId: alice.id,
        organizationId: acme.id,
        scopes: allScopes.filter((scope) => scope !== operation.scope),
      });
      const response = await request(lacking.accessToken);
      expect(response.status, name).toBe(403);
      expect(response.headers.get("www-authenticate"), name).toContain(`scope="${operation.scope}"`);
    }
  });
});
