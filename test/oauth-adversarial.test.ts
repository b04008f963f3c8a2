import { control } from "@crm/db";
import { eq } from "drizzle-orm";
import * as oauth from "oauth4webapi";
import { describe, expect, it } from "vitest";
import { ConsoleBrowser, consoleUser } from "./console-browser";
import {
  authorizationServer,
  authorizationUrl,
  authorizeInBrowser,
  codeFlow,
  consentForm,
  createConfidentialApp,
  db,
  gatewayFetch,
  origin,
  postConsent,
  registerPublicClient,
  signedInUser,
} from "./oauth-client";

/** The OAuth endpoints tried as an attacker or a careless client would: races, tricks and mix-ups. */

const tokenRequest = (fields: Record<string, string>, headers: Record<string, string> = {}) =>
  gatewayFetch()(`${origin}/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams(fields),
  });

/** A code issued to a public client, not yet exchanged, with the verifier that redeems it. */
async function freshCode(extra: Record<string, string | null> = {}) {
  const user = await signedInUser();
  const registered = await registerPublicClient();
  const request = await authorizationUrl(registered.client, registered.redirectUri, extra);
  const callback = await authorizeInBrowser(request.url, user.cookie);
  return { registered, request, callback, code: callback.searchParams.get("code") as string };
}

describe("concurrent duplicates at the token endpoint", () => {
  it("two exchanges of one code at once issue one token", async () => {
    const { registered, request, code } = await freshCode();
    const exchange = () =>
      tokenRequest({
        grant_type: "authorization_code",
        client_id: registered.client.client_id,
        code,
        redirect_uri: registered.redirectUri,
        code_verifier: request.verifier,
      });
    const answers = await Promise.all([exchange(), exchange()]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 400]);
  });

  it("two refreshes with one refresh token at once issue one token", async () => {
    const user = await signedInUser();
    const registered = await registerPublicClient();
    const { tokens } = await codeFlow(registered, user.cookie);
    const refresh = () =>
      tokenRequest({
        grant_type: "refresh_token",
        client_id: registered.client.client_id,
        refresh_token: tokens.refresh_token as string,
      });
    const answers = await Promise.all([refresh(), refresh()]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 400]);
  });
});

describe("the token endpoint's client authentication", () => {
  it("refuses a public client sending a secret and a confidential one without its secret (401 invalid_client)", async () => {
    const { registered, request, code } = await freshCode();
    const withSecret = await tokenRequest({
      grant_type: "authorization_code",
      client_id: registered.client.client_id,
      client_secret: "anything",
      code,
      redirect_uri: registered.redirectUri,
      code_verifier: request.verifier,
    });
    expect(withSecret.status).toBe(401);
    expect(await withSecret.json()).toMatchObject({ error: "invalid_client" });
    expect(withSecret.headers.get("cache-control")).toBe("no-store");

    const app = await createConfidentialApp();
    const withoutSecret = await tokenRequest({ grant_type: "client_credentials", client_id: app.client.client_id });
    expect(withoutSecret.status).toBe(401);
    expect(await withoutSecret.json()).toMatchObject({ error: "invalid_client" });
    const both = await tokenRequest(
      { grant_type: "client_credentials", client_secret: app.secret },
      { authorization: `Basic ${btoa(`${app.client.client_id}:${app.secret}`)}` },
    );
    expect(both.status).toBe(400);
    expect(await both.json()).toMatchObject({ error: "invalid_request" });
  });

  it("refuses PKCE verifiers outside 43–128 unreserved characters, even when their hash matches", async () => {
    for (const verifier of ["a".repeat(42), "a".repeat(129), `${"a".repeat(42)}+`, `${"a".repeat(42)} `]) {
      const { registered, code } = await freshCode({ code_challenge: await oauth.calculatePKCECodeChallenge(verifier) });
      const response = await tokenRequest({
        grant_type: "authorization_code",
        client_id: registered.client.client_id,
        code,
        redirect_uri: registered.redirectUri,
        code_verifier: verifier,
      });
      expect(response.status, verifier).toBe(400);
      expect(await response.json()).toMatchObject({ error: "invalid_grant" });
    }
  });
});

describe("the authorization endpoint against redirect tricks", () => {
  const registeredUri = "https://app.example/oauth/callback";

  it("echoes state and names the issuer (iss) in the redirect", async () => {
    const { callback, request } = await freshCode();
    expect(callback.searchParams.get("state")).toBe(request.state);
    expect(callback.searchParams.get("iss")).toBe(origin);
    const as = await authorizationServer();
    expect(as.authorization_response_iss_parameter_supported).toBe(true);
  });

  it("shows a page, never a redirect, for near-miss redirect URIs and repeated parameters", async () => {
    const user = await signedInUser();
    const app = await createConfidentialApp();
    // The registered URI itself gets the error at the client: the near misses below must not.
    const { url: exact } = await authorizationUrl(app.client, registeredUri, { scope: "not-a-scope" });
    expect((await gatewayFetch()(exact, { headers: { cookie: user.cookie } })).status).toBe(302);
    for (const redirectUri of [
      `${registeredUri}/`,
      `${registeredUri}x`,
      registeredUri.replace("/callback", "/callbac"),
      registeredUri.replace("https://", "https://user@"),
      registeredUri.replace("app.example", "app.example.evil.example"),
      registeredUri.replace("app.example", "evil.example#app.example"),
      registeredUri.replace("app.example", "APP.example"),
      registeredUri.replace("app.example", "аpp.example"),
      `${registeredUri}?next=https://evil.example`,
      registeredUri.replace("https:", "http:"),
    ]) {
      const { url } = await authorizationUrl(app.client, redirectUri, { scope: "not-a-scope" });
      const response = await gatewayFetch()(url, { headers: { cookie: user.cookie } });
      expect(response.status, redirectUri).toBe(400);
      expect(response.headers.get("location"), redirectUri).toBeNull();
    }
    const { url } = await authorizationUrl(app.client, registeredUri);
    for (const repeated of ["client_id", "redirect_uri"]) {
      const twice = new URL(url);
      twice.searchParams.append(repeated, repeated === "client_id" ? "cli_other" : "https://evil.example/cb");
      const response = await gatewayFetch()(twice, { headers: { cookie: user.cookie } });
      expect(response.status, repeated).toBe(400);
      expect(response.headers.get("location")).toBeNull();
      expect(await response.text()).toContain("repeated");
    }
  });

  it("keeps a state with line breaks and markup inside the redirect's query", async () => {
    const state = "a\r\nSet-Cookie: x=1<script>";
    const { callback } = await freshCode({ state });
    expect(callback.searchParams.get("state")).toBe(state);
  });
});

describe("malformed input at the OAuth endpoints", () => {
  const register = (body: string) =>
    gatewayFetch()(`${origin}/oauth/register`, { method: "POST", headers: { "content-type": "application/json" }, body });

  it("answers RFC 6749 errors, never a 500, for broken encodings and odd types", async () => {
    const answers = [
      await register('{"redirect_uris":["https://a.example/cb"],"client_name":"\\ud800"}'),
      await register(`{"redirect_uris":["https://a.example/cb"],"client_name":"${"n".repeat(300)}"}`),
      await register('{"redirect_uris":"https://a.example/cb"}'),
      await register('{"redirect_uris":[1]}'),
      await register(`{"redirect_uris":[${Array.from({ length: 11 }, () => '"https://a.example/cb"').join(",")}]}`),
      await register('{"redirect_uris":["https://a.example/cb"],"client_name":"Line\\nbreak"}'),
      await gatewayFetch()(`${origin}/oauth/register`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: new Uint8Array([
          ...new TextEncoder().encode('{"redirect_uris":["https://a.example/cb"],"client_name":"'),
          0xff,
          0x22,
          0x7d,
        ]),
      }),
      await register("[]"),
      await register("null"),
      await gatewayFetch()(`${origin}/oauth/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new Uint8Array([0x67, 0x72, 0x61, 0x6e, 0x74, 0x5f, 0x74, 0x79, 0x70, 0x65, 0x3d, 0xff, 0xfe]),
      }),
      await gatewayFetch()(`${origin}/oauth/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: "grant_type=authorization_code&client_id=%ZZ&code=%",
      }),
      await gatewayFetch()(`${origin}/oauth/revoke`, {
        method: "POST",
        headers: { "content-type": "multipart/form-data; boundary=x" },
        body: '--x\r\nContent-Disposition: form-data; name="token"\r\n\r\nabc\r\n--x--',
      }),
      await gatewayFetch()(`${origin}/oauth/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", authorization: "Basic %%%" },
        body: "grant_type=client_credentials",
      }),
    ];
    for (const [index, answer] of answers.entries()) {
      expect(answer.status, String(index)).toBeGreaterThanOrEqual(400);
      expect(answer.status, String(index)).toBeLessThan(500);
      expect(await answer.json(), String(index)).toMatchObject({
        error: expect.any(String),
        error_description: expect.any(String),
      });
    }
  });

  it("shows an error page for an authorization request with a broken query", async () => {
    for (const query of ["client_id=%ZZ", "client_id=%FF%FE", "client_id=", "client_id=cli_x&redirect_uri=%00"]) {
      const response = await gatewayFetch()(`${origin}/oauth/authorize?${query}`);
      expect(response.status, query).toBe(400);
      expect(response.headers.get("location")).toBeNull();
    }
  });
});

describe("signing in during an authorization request", () => {
  it("returns to the request however long its accepted parameters make it (a 1024-character state, a long redirect URI)", async () => {
    const user = await consoleUser();
    const registered = await registerPublicClient(`https://mcp-client.example/${"callback/".repeat(150)}`);
    const request = await authorizationUrl(registered.client, registered.redirectUri, { state: "~".repeat(1024) });
    const signInPage = new URL((await gatewayFetch()(request.url)).headers.get("location") as string, origin);
    const returnTo = signInPage.searchParams.get("return_to") as string;
    // As a browser does: the sign-in page's own form carries the return address.
    const browser = new ConsoleBrowser();
    const { html, csrf } = await browser.page(`${signInPage.pathname}${signInPage.search}`);
    const field = /name="return_to" value="([^"]*)"/.exec(html)?.[1] ?? "";
    const landed = await browser.post("/console/sign-in", {
      csrf,
      email: user.email,
      password: user.password,
      return_to: field.replaceAll("&amp;", "&"),
    });
    expect(landed.status).toBe(303);
    expect(landed.headers.get("location")).toBe(returnTo);
  });
});

describe("the consent form answered twice at once", () => {
  it("creates one grant and one code (a double click on Allow)", async () => {
    const user = await signedInUser();
    const registered = await registerPublicClient();
    const request = await authorizationUrl(registered.client, registered.redirectUri);
    const page = await gatewayFetch()(request.url, { headers: { cookie: user.cookie } });
    const { reference, csrfToken } = consentForm(await page.text());
    const fields = { reference, csrf_token: csrfToken, decision: "allow" };
    const answers = await Promise.all([postConsent(user.cookie, fields), postConsent(user.cookie, fields)]);
    const codes = answers.flatMap((answer) => {
      const location = answer.headers.get("location");
      return location ? [new URL(location).searchParams.get("code")] : [];
    });
    expect(codes).toHaveLength(1);
    expect(answers.map((answer) => answer.status).sort()).toEqual([303, 400]);
    const grants = await db().select().from(control.oauthGrants).where(eq(control.oauthGrants.userId, user.userId));
    expect(grants).toHaveLength(1);
  });

  it("answers tokens uncacheable", async () => {
    const { registered, request, code } = await freshCode();
    const response = await tokenRequest({
      grant_type: "authorization_code",
      client_id: registered.client.client_id,
      code,
      redirect_uri: registered.redirectUri,
      code_verifier: request.verifier,
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("no-store");
  });
});

describe("loopback redirect URIs of native apps (RFC 8252 section 7.3)", () => {
  it("accept any port on a registered loopback IP URI, and nothing else beside it", async () => {
    const user = await signedInUser();
    const registered = await registerPublicClient("http://127.0.0.1/callback");
    const onPort = { ...registered, redirectUri: "http://127.0.0.1:49152/callback" };
    const { tokens } = await codeFlow(onPort, user.cookie);
    expect(tokens.access_token).toBeTruthy();
    for (const redirectUri of [
      "http://127.0.0.1:49152/other",
      "http://localhost:49152/callback",
      "http://[::1]:49152/callback",
      "https://127.0.0.1:49152/callback",
      "http://127.0.0.1:49152/x/../callback",
      "http://127.0.0.1:49152/callback?next=1",
    ]) {
      const { url } = await authorizationUrl(registered.client, redirectUri);
      const response = await gatewayFetch()(url, { headers: { cookie: user.cookie } });
      expect(response.status, redirectUri).toBe(400);
    }
  });
});
