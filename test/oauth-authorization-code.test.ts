import { control } from "@crm/db";
import { eq } from "drizzle-orm";
import { createLocalJWKSet, jwtVerify } from "jose";
import * as oauth from "oauth4webapi";
import { describe, expect, it } from "vitest";
import { secretHash } from "../workers/gateway/src/identity/identity-secret";
import {
  apiResource,
  authorizationServer,
  authorizationUrl,
  authorizeInBrowser,
  clientOptions,
  codeFlow,
  consentForm,
  createConfidentialApp,
  db,
  exchangeCode,
  gatewayFetch,
  mcpResource,
  origin,
  postConsent,
  registerPublicClient,
  signedInUser,
  tokenError,
} from "./oauth-client";

async function verifyAccessToken(token: string, audience = apiResource) {
  const jwks = await (await gatewayFetch()(`${origin}/.well-known/jwks.json`)).json<{ keys: JsonWebKey[] }>();
  return jwtVerify(token, createLocalJWKSet(jwks as never), { issuer: origin, audience, algorithms: ["ES256"], typ: "at+jwt" });
}

async function grantOf(grantId: string) {
  const [grant] = await db().select().from(control.oauthGrants).where(eq(control.oauthGrants.id, grantId));
  return grant;
}

describe("authorization code flow with PKCE", () => {
  it("gives a DCR public client an ES256 access token with the claims of DESIGN.md and a refresh token", async () => {
    const user = await signedInUser();
    const registered = await registerPublicClient();
    const { tokens } = await codeFlow(registered, user.cookie);
    expect(tokens.token_type).toBe("bearer");
    expect(tokens.expires_in).toBe(3600);
    expect(tokens.scope).toBe("crm:records:read tasks:read");
    expect(tokens.refresh_token).toBeTruthy();
    const { payload, protectedHeader } = await verifyAccessToken(tokens.access_token);
    expect(protectedHeader.kid).toBeTruthy();
    expect(payload).toMatchObject({
      iss: origin,
      aud: apiResource,
      sub: user.userId,
      org: user.organizationIds[0],
      scope: "crm:records:read tasks:read",
      client_id: registered.client.client_id,
      act: "user",
    });
    expect((payload.exp ?? 0) - (payload.iat ?? 0)).toBeLessThanOrEqual(3600);
    expect(payload.jti).toBeTruthy();
    expect(await grantOf(payload.grant_id as string)).toMatchObject({ userId: user.userId, revokedAt: null });
    // The strict client's own RFC 9068 validation agrees.
    const as = await authorizationServer();
    const request = new Request(apiResource, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    await expect(oauth.validateJwtAccessToken(as, request, apiResource, clientOptions())).resolves.toMatchObject({
      client_id: registered.client.client_id,
    });
  });

  it("binds the token to the requested resource (RFC 8707): the MCP endpoint", async () => {
    const user = await signedInUser();
    const registered = await registerPublicClient();
    const { tokens } = await codeFlow(registered, user.cookie, { resource: mcpResource });
    const { payload } = await verifyAccessToken(tokens.access_token, mcpResource);
    expect(payload.aud).toBe(mcpResource);
  });

  it("lets a confidential client authenticate with client_secret_basic or client_secret_post", async () => {
    const user = await signedInUser();
    const app = await createConfidentialApp();
    const basic = await codeFlow(app, user.cookie);
    expect(basic.tokens.access_token).toBeTruthy();
    const post = await codeFlow({ ...app, auth: oauth.ClientSecretPost(app.secret) }, user.cookie);
    expect(post.tokens.access_token).toBeTruthy();
    const wrongSecret = await tokenError(codeFlow({ ...app, auth: oauth.ClientSecretBasic("wrong") }, user.cookie));
    expect(wrongSecret).toEqual({ error: "invalid_client", status: 401 });
  });

  it("answers invalid_client on basic auth with 401 and a WWW-Authenticate challenge", async () => {
    const app = await createConfidentialApp();
    const response = await gatewayFetch()(`${origin}/oauth/token`, {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        authorization: `Basic ${btoa(`${app.client.client_id}:wrong`)}`,
      },
      body: new URLSearchParams({ grant_type: "client_credentials" }),
    });
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toMatch(/^Basic /);
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(await response.json()).toMatchObject({ error: "invalid_client", error_description: expect.any(String) });
  });

  it("refuses a code used twice and revokes the grant it issued", async () => {
    const user = await signedInUser();
    const registered = await registerPublicClient();
    const as = await authorizationServer();
    const request = await authorizationUrl(registered.client, registered.redirectUri);
    const callback = await authorizeInBrowser(request.url, user.cookie);
    const exchange = () => exchangeCode(registered, request, callback);
    const first = await exchange();
    expect(await tokenError(exchange())).toEqual({ error: "invalid_grant", status: 400 });
    const { payload } = await verifyAccessToken(first.access_token);
    expect((await grantOf(payload.grant_id as string))?.revokedAt).not.toBeNull();
    // The refresh token of the first exchange went with the grant.
    const refreshed = oauth.refreshTokenGrantRequest(
      as,
      registered.client,
      registered.auth,
      first.refresh_token as string,
      clientOptions(),
    );
    expect(
      await tokenError(refreshed.then((response) => oauth.processRefreshTokenResponse(as, registered.client, response))),
    ).toEqual({
      error: "invalid_grant",
      status: 400,
    });
  });

  it("refuses a wrong PKCE verifier and a wrong redirect_uri", async () => {
    const user = await signedInUser();
    const registered = await registerPublicClient();
    const exchangeWith = async (verifier: string, redirectUri: string) => {
      const request = await authorizationUrl(registered.client, registered.redirectUri);
      const callback = await authorizeInBrowser(request.url, user.cookie);
      return tokenError(
        exchangeCode(registered, request, callback, { redirectUri, ...(verifier === "right" ? {} : { verifier }) }),
      );
    };
    expect(await exchangeWith(oauth.generateRandomCodeVerifier(), registered.redirectUri)).toEqual({
      error: "invalid_grant",
      status: 400,
    });
    expect(await exchangeWith("right", "http://127.0.0.1:33418/other")).toEqual({ error: "invalid_grant", status: 400 });
  });

  it("uses the code up on a wrong verifier or redirect_uri: the right one afterwards gets nothing (RFC 9700)", async () => {
    const user = await signedInUser();
    const registered = await registerPublicClient();
    const wrongGuesses = [{ verifier: oauth.generateRandomCodeVerifier() }, { redirectUri: "http://127.0.0.1:33418/other" }];
    for (const wrong of wrongGuesses) {
      const request = await authorizationUrl(registered.client, registered.redirectUri);
      const callback = await authorizeInBrowser(request.url, user.cookie);
      expect(await tokenError(exchangeCode(registered, request, callback, wrong))).toEqual({
        error: "invalid_grant",
        status: 400,
      });
      expect(await tokenError(exchangeCode(registered, request, callback))).toEqual({ error: "invalid_grant", status: 400 });
    }
  });
});

describe("refresh tokens", () => {
  it("rotate on every use, and a replayed old one revokes the whole grant", async () => {
    const user = await signedInUser();
    const registered = await registerPublicClient();
    const as = await authorizationServer();
    const { tokens } = await codeFlow(registered, user.cookie);
    const refresh = async (token: string) =>
      oauth.processRefreshTokenResponse(
        as,
        registered.client,
        await oauth.refreshTokenGrantRequest(as, registered.client, registered.auth, token, clientOptions()),
      );
    const second = await refresh(tokens.refresh_token as string);
    expect(second.refresh_token).toBeTruthy();
    expect(second.refresh_token).not.toBe(tokens.refresh_token);
    const third = await refresh(second.refresh_token as string);
    const { payload } = await verifyAccessToken(third.access_token);
    expect(payload.sub).toBe(user.userId);

    // The first token, already rotated away, comes back: someone else holds it.
    expect(await tokenError(refresh(tokens.refresh_token as string))).toEqual({ error: "invalid_grant", status: 400 });
    expect((await grantOf(payload.grant_id as string))?.revokedAt).not.toBeNull();
    // The legitimate holder's current token dies with the grant.
    expect(await tokenError(refresh(third.refresh_token as string))).toEqual({ error: "invalid_grant", status: 400 });
  });

  it("may narrow the scopes, never widen them", async () => {
    const user = await signedInUser();
    const registered = await registerPublicClient();
    const as = await authorizationServer();
    const { tokens } = await codeFlow(registered, user.cookie);
    const refresh = async (token: string, scope: string) =>
      oauth.processRefreshTokenResponse(
        as,
        registered.client,
        await oauth.refreshTokenGrantRequest(as, registered.client, registered.auth, token, {
          ...clientOptions(),
          additionalParameters: { scope },
        }),
      );
    expect(await tokenError(refresh(tokens.refresh_token as string, "crm:records:write"))).toEqual({
      error: "invalid_scope",
      status: 400,
    });
    const narrowed = await refresh(tokens.refresh_token as string, "tasks:read");
    expect(narrowed.scope).toBe("tasks:read");
  });

  it("are refused to another client", async () => {
    const user = await signedInUser();
    const owner = await registerPublicClient();
    const other = await registerPublicClient();
    const as = await authorizationServer();
    const { tokens } = await codeFlow(owner, user.cookie);
    const response = await oauth.refreshTokenGrantRequest(
      as,
      other.client,
      other.auth,
      tokens.refresh_token as string,
      clientOptions(),
    );
    expect(await tokenError(oauth.processRefreshTokenResponse(as, other.client, response))).toEqual({
      error: "invalid_grant",
      status: 400,
    });
  });
});

describe("the authorization endpoint", () => {
  it("redirects invalid_scope to an operator-registered client's URI with the state", async () => {
    const user = await signedInUser();
    const registered = await createConfidentialApp();
    const as = await authorizationServer();
    for (const scope of ["", "crm:records:read admin:everything"]) {
      const request = await authorizationUrl(registered.client, registered.redirectUri, { scope });
      const response = await gatewayFetch()(request.url, { headers: { cookie: user.cookie } });
      expect(response.status).toBe(302);
      const location = new URL(response.headers.get("location") as string);
      expect(`${location.origin}${location.pathname}`).toBe(registered.redirectUri);
      expect(location.searchParams.get("state")).toBe(request.state);
      expect(location.searchParams.get("iss")).toBe(origin);
      try {
        oauth.validateAuthResponse(as, registered.client, location, request.state);
        expect.unreachable("the client should see an error");
      } catch (error) {
        expect(error).toBeInstanceOf(oauth.AuthorizationResponseError);
        expect((error as oauth.AuthorizationResponseError).error).toBe("invalid_scope");
      }
    }
  });

  it("requires PKCE with S256: missing or plain is an error at an operator-registered client's redirect URI", async () => {
    const user = await signedInUser();
    const registered = await createConfidentialApp();
    const cases: Record<string, string | null>[] = [
      { code_challenge: null, code_challenge_method: null },
      { code_challenge_method: null },
      { code_challenge_method: "plain" },
    ];
    for (const extra of cases) {
      const request = await authorizationUrl(registered.client, registered.redirectUri, extra);
      const response = await gatewayFetch()(request.url, { headers: { cookie: user.cookie } });
      expect(response.status).toBe(302);
      const location = new URL(response.headers.get("location") as string);
      expect(location.searchParams.get("error")).toBe("invalid_request");
      expect(location.searchParams.get("error_description")).toMatch(/PKCE|S256/);
      expect(location.searchParams.get("state")).toBe(request.state);
      expect(location.searchParams.has("code")).toBe(false);
    }
  });

  it("shows an error page, never a redirect, for an unregistered redirect URI or an unknown client", async () => {
    const user = await signedInUser();
    const registered = await registerPublicClient();
    const attempts = [
      await authorizationUrl(registered.client, "https://attacker.example/callback"),
      await authorizationUrl(registered.client, `${registered.redirectUri}/../evil`),
      await authorizationUrl(registered.client, registered.redirectUri, { redirect_uri: null }),
      await authorizationUrl({ client_id: "cli_unknown000000" }, registered.redirectUri),
      // Even with every other parameter wrong too, the bad redirect URI is what decides.
      await authorizationUrl(registered.client, "https://attacker.example/callback", {
        scope: "",
        code_challenge_method: "plain",
      }),
    ];
    for (const { url } of attempts) {
      for (const cookie of [user.cookie, null]) {
        const response = await gatewayFetch()(url, { headers: cookie ? { cookie } : {} });
        expect(response.status).toBe(400);
        expect(response.headers.get("location")).toBeNull();
        expect(response.headers.get("content-type")).toMatch(/^text\/html/);
        expect(await response.text()).toMatch(/Nothing was authorized/);
      }
    }
  });

  it("never sends anyone to a self-registered client's URI before its consent page (RFC 9700 section 4.11)", async () => {
    // Anyone may register any https URI: an error redirect there would make our origin an open redirector.
    const user = await signedInUser();
    const registered = await registerPublicClient("https://attacker.example/landing");
    const broken: Record<string, string | null>[] = [
      { response_type: "token" },
      { scope: "" },
      { scope: "admin:everything" },
      { code_challenge_method: "plain" },
      { resource: "https://elsewhere.example/" },
      { state: "x".repeat(2000) },
    ];
    for (const extra of broken) {
      const request = await authorizationUrl(registered.client, registered.redirectUri, extra);
      // Signed out: to sign in, whatever the request holds.
      const signedOut = await gatewayFetch()(request.url);
      expect(signedOut.status, JSON.stringify(extra)).toBe(302);
      expect(new URL(signedOut.headers.get("location") as string, origin).pathname).toBe("/console/sign-in");
      // Signed in: the error on our page, not at the client's URI.
      const signedIn = await gatewayFetch()(request.url, { headers: { cookie: user.cookie } });
      expect(signedIn.status, JSON.stringify(extra)).toBe(400);
      expect(signedIn.headers.get("location")).toBeNull();
      expect(await signedIn.text()).toMatch(/Nothing was authorized/);
    }
    // Once the user has seen the consent page, the answer goes back to the client, a denial included.
    const request = await authorizationUrl(registered.client, registered.redirectUri);
    const callback = await authorizeInBrowser(request.url, user.cookie, { decision: "deny" });
    expect(`${callback.origin}${callback.pathname}`).toBe(registered.redirectUri);
    expect(callback.searchParams.get("error")).toBe("access_denied");
  });

  it("sends a visitor without a console session to sign in, never to the client, even for a request in error", async () => {
    const operatorApp = await createConfidentialApp();
    const request = await authorizationUrl(operatorApp.client, operatorApp.redirectUri, { scope: "" });
    const response = await gatewayFetch()(request.url);
    expect(response.status).toBe(302);
    expect(new URL(response.headers.get("location") as string, origin).pathname).toBe("/console/sign-in");
  });

  it("sends a visitor without a console session to sign in, with a same-origin return address", async () => {
    const registered = await registerPublicClient();
    const request = await authorizationUrl(registered.client, registered.redirectUri);
    const response = await gatewayFetch()(request.url);
    expect(response.status).toBe(302);
    const location = new URL(response.headers.get("location") as string, origin);
    expect(location.pathname).toBe("/console/sign-in");
    const returnTo = location.searchParams.get("return_to") as string;
    expect(returnTo.startsWith("/oauth/authorize?")).toBe(true);
    expect(new URL(returnTo, origin).searchParams.get("state")).toBe(request.state);
  });

  it("shows the consent page: client name, scopes in words, Allow and Deny, unframeable and uncached", async () => {
    const user = await signedInUser();
    const registered = await registerPublicClient();
    const request = await authorizationUrl(registered.client, registered.redirectUri);
    const response = await gatewayFetch()(request.url, { headers: { cookie: user.cookie } });
    expect(response.status).toBe(200);
    expect(response.headers.get("x-frame-options")).toBe("DENY");
    expect(response.headers.get("cache-control")).toBe("no-store");
    const html = await response.text();
    expect(html).toContain("Test MCP client");
    expect(html).toContain("See CRM records");
    expect(html).toContain("See tasks");
    expect(html).toMatch(/value="allow"/);
    expect(html).toMatch(/value="deny"/);
    expect(html).toContain("not verified");
  });

  it("says on the consent page that webhooks:write gives the events' content", async () => {
    const user = await signedInUser();
    const registered = await registerPublicClient();
    const request = await authorizationUrl(registered.client, registered.redirectUri, {
      scope: "webhooks:read webhooks:write",
    });
    const response = await gatewayFetch()(request.url, { headers: { cookie: user.cookie } });
    expect(response.status).toBe(200);
    expect(await response.text()).toContain("receive the full content of the events they deliver");
  });

  it("sends access_denied back when the user denies", async () => {
    const user = await signedInUser();
    const registered = await registerPublicClient();
    const as = await authorizationServer();
    const request = await authorizationUrl(registered.client, registered.redirectUri);
    const callback = await authorizeInBrowser(request.url, user.cookie, { decision: "deny" });
    expect(callback.searchParams.get("state")).toBe(request.state);
    expect(() => oauth.validateAuthResponse(as, registered.client, callback, request.state)).toThrow(
      oauth.AuthorizationResponseError,
    );
    expect(callback.searchParams.get("error")).toBe("access_denied");
  });

  it("grants nothing for a consent POST replayed without the browser's state, from another session, or twice", async () => {
    const user = await signedInUser();
    const intruder = await signedInUser();
    const registered = await registerPublicClient();
    const request = await authorizationUrl(registered.client, registered.redirectUri);
    const page = await gatewayFetch()(request.url, { headers: { cookie: user.cookie } });
    const { reference, csrfToken } = consentForm(await page.text());
    const grantsBefore = await db()
      .select()
      .from(control.oauthGrants)
      .where(eq(control.oauthGrants.clientId, registered.client.client_id));

    const replays = [
      // No cookie: the browser's state is missing.
      await postConsent(null, { reference, csrf_token: csrfToken, decision: "allow" }),
      // Another user's session with the stolen form.
      await postConsent(intruder.cookie, { reference, csrf_token: csrfToken, decision: "allow" }),
      // The right session without the CSRF token, and with a tampered reference.
      await postConsent(user.cookie, { reference, decision: "allow" }),
      await postConsent(user.cookie, { reference: `${reference.slice(0, -2)}xx`, csrf_token: csrfToken, decision: "allow" }),
    ];
    for (const response of replays) {
      expect(response.status).toBeGreaterThanOrEqual(400);
      expect(response.headers.get("location")).toBeNull();
    }
    const grantsAfter = await db()
      .select()
      .from(control.oauthGrants)
      .where(eq(control.oauthGrants.clientId, registered.client.client_id));
    expect(grantsAfter).toHaveLength(grantsBefore.length);

    // The genuine answer works once; the same form posted again grants nothing more.
    const first = await postConsent(user.cookie, { reference, csrf_token: csrfToken, decision: "allow" });
    expect(first.status).toBe(303);
    const again = await postConsent(user.cookie, { reference, csrf_token: csrfToken, decision: "allow" });
    expect(again.status).toBe(400);
    expect(again.headers.get("location")).toBeNull();
    expect(await again.text()).toContain("already answered");
    const grantsFinal = await db()
      .select()
      .from(control.oauthGrants)
      .where(eq(control.oauthGrants.clientId, registered.client.client_id));
    expect(grantsFinal).toHaveLength(grantsBefore.length + 1);
  });

  it("answers an oversized consent form with a 413 page, granting nothing", async () => {
    const user = await signedInUser();
    const registered = await registerPublicClient();
    const request = await authorizationUrl(registered.client, registered.redirectUri);
    const page = await gatewayFetch()(request.url, { headers: { cookie: user.cookie } });
    const { reference, csrfToken } = consentForm(await page.text());
    const response = await postConsent(user.cookie, {
      reference,
      csrf_token: csrfToken,
      decision: "allow",
      padding: "x".repeat(20_000),
    });
    expect(response.status).toBe(413);
    expect(response.headers.get("location")).toBeNull();
    expect(response.headers.get("content-type")).toMatch(/^text\/html/);
    const grants = await db()
      .select()
      .from(control.oauthGrants)
      .where(eq(control.oauthGrants.clientId, registered.client.client_id));
    expect(grants).toHaveLength(0);
  });

  it("lets a user of several organizations pick one, or none (a token without org)", async () => {
    const user = await signedInUser({ extraOrganizations: 1 });
    const registered = await registerPublicClient();
    const exchangeWith = async (organization: string) => {
      const request = await authorizationUrl(registered.client, registered.redirectUri);
      const callback = await authorizeInBrowser(request.url, user.cookie, { organization });
      return (await verifyAccessToken((await exchangeCode(registered, request, callback)).access_token)).payload;
    };
    const second = user.organizationIds[1] as string;
    expect((await exchangeWith(second)).org).toBe(second);
    expect(await exchangeWith("")).not.toHaveProperty("org");
    // An organization the user is not in is refused on the form.
    const request = await authorizationUrl(registered.client, registered.redirectUri);
    await expect(authorizeInBrowser(request.url, user.cookie, { organization: "org_someoneelse0000" })).rejects.toThrow(/400/);
  });

  it("makes codes stored as hashes that expire after 60 seconds", async () => {
    const user = await signedInUser();
    const registered = await registerPublicClient();
    const request = await authorizationUrl(registered.client, registered.redirectUri);
    const callback = await authorizeInBrowser(request.url, user.cookie);
    const code = callback.searchParams.get("code") as string;
    const codeHash = await secretHash(code);
    const [stored] = await db()
      .select()
      .from(control.oauthAuthorizationCodes)
      .where(eq(control.oauthAuthorizationCodes.codeHash, codeHash));
    expect(stored && stored.expiresAt - stored.createdAt).toBe(60_000);
    // As if the 60 seconds had passed.
    await db()
      .update(control.oauthAuthorizationCodes)
      .set({ expiresAt: Date.now() - 1 })
      .where(eq(control.oauthAuthorizationCodes.codeHash, codeHash));
    expect(await tokenError(exchangeCode(registered, request, callback))).toEqual({
      error: "invalid_grant",
      status: 400,
    });
  });
});
