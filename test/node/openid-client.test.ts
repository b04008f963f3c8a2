import { createLocalJWKSet, type JSONWebKeySet, jwtVerify } from "jose";
import * as client from "openid-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStack } from "../../scripts/lib/stack.mjs";

/**
 * `openid-client` (v6), a certified OAuth client nobody here wrote, against a freshly started stack
 * on miniflare over real HTTP: the code flow with PKCE through sign-in and consent (the browser's
 * part played with plain requests and a cookie jar), refresh, client credentials, revocation, and
 * dynamic registration of a confidential client. The JWKS is read first, before anything was
 * signed, and every token is verified with that copy (a verifier caches it for its max-age).
 */

interface DemoClient {
  clientId: string;
  clientSecret?: string;
  redirectUri: string;
}
interface Demo {
  organizations: { name: string; users: { email: string; password: string }[] }[];
  oauthClients: DemoClient[];
}

let stack: Awaited<ReturnType<typeof startStack>>;
let origin: string;
let demo: Demo;
/** The JWKS as fetched before any token existed. */
let firstJwks: JSONWebKeySet;

beforeAll(async () => {
  stack = await startStack();
  origin = new URL(stack.url).origin;
  demo = stack.demo as unknown as Demo;
  const response = await fetch(`${origin}/.well-known/jwks.json`);
  firstJwks = (await response.json()) as JSONWebKeySet;
});

afterAll(async () => {
  await stack?.mf.dispose();
});

const execute = [client.allowInsecureRequests];
const alice = () => {
  const user = demo.organizations.find((organization) => organization.name === "Acme")?.users[0];
  if (!user) throw new Error("the demo has no alice");
  return user;
};
const demoClient = (confidential: boolean) => {
  const found = demo.oauthClients.find((candidate) => (candidate.clientSecret !== undefined) === confidential);
  if (!found) throw new Error("the demo lacks an OAuth client");
  return found;
};

async function verifiedWithFirstJwks(accessToken: string) {
  return jwtVerify(accessToken, createLocalJWKSet(firstJwks), {
    issuer: origin,
    audience: `${origin}/api/v1`,
    algorithms: ["ES256"],
    typ: "at+jwt",
  });
}

/** A browser's cookie jar for one origin, enough for the console's cookies. */
class CookieJar {
  readonly #cookies = new Map<string, string>();
  keep(response: Response) {
    for (const cookie of response.headers.getSetCookie()) {
      const [pair = ""] = cookie.split(";");
      const separator = pair.indexOf("=");
      this.#cookies.set(pair.slice(0, separator), pair.slice(separator + 1));
    }
  }
  header = () => [...this.#cookies].map(([name, value]) => `${name}=${value}`).join("; ");
}

/** What a browser does: follow the authorization URL, sign in as alice, allow; returns the callback URL. */
async function signInAndAllow(authorizationUrl: URL): Promise<URL> {
  const jar = new CookieJar();
  const visit = async (url: string | URL, init: RequestInit = {}) => {
    const response = await fetch(url, { ...init, redirect: "manual", headers: { ...init.headers, cookie: jar.header() } });
    jar.keep(response);
    return response;
  };
  const field = (html: string, name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1] ?? "";
  const form = (fields: Record<string, string>) => ({
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields),
  });

  const toSignIn = await visit(authorizationUrl);
  expect(toSignIn.status).toBe(302);
  const signInPage = await (await visit(new URL(toSignIn.headers.get("location") as string, origin))).text();
  const { email, password } = alice();
  const signedIn = await visit(
    `${origin}/console/sign-in`,
    form({
      csrf: field(signInPage, "csrf"),
      return_to: field(signInPage, "return_to").replaceAll("&amp;", "&"),
      email,
      password,
    }),
  );
  expect(signedIn.status).toBe(303);
  const consent = await visit(new URL(signedIn.headers.get("location") as string, origin));
  expect(consent.status).toBe(200);
  const consentPage = await consent.text();
  const allowed = await visit(
    `${origin}/oauth/authorize`,
    form({ reference: field(consentPage, "reference"), csrf_token: field(consentPage, "csrf_token"), decision: "allow" }),
  );
  expect(allowed.status).toBe(303);
  return new URL(allowed.headers.get("location") as string);
}

/** The code flow with PKCE as openid-client runs it, from the authorization URL to the tokens. */
async function codeFlow(config: client.Configuration, redirectUri: string) {
  const codeVerifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const authorizationUrl = client.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri,
    scope: "crm:records:read tasks:read",
    code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: "S256",
    state,
  });
  const callback = await signInAndAllow(authorizationUrl);
  return client.authorizationCodeGrant(config, callback, { pkceCodeVerifier: codeVerifier, expectedState: state });
}

describe("openid-client against a fresh stack", () => {
  it("finds a signing key in the JWKS before any token was signed", () => {
    expect(firstJwks.keys.length).toBeGreaterThan(0);
  });

  it("runs the code flow with PKCE for the demo's public client, refreshes, and revokes", async () => {
    const { clientId, redirectUri } = demoClient(false);
    const config = await client.discovery(new URL(origin), clientId, undefined, client.None(), {
      algorithm: "oauth2",
      execute,
    });
    const tokens = await codeFlow(config, redirectUri);
    expect(tokens.scope).toBe("crm:records:read tasks:read");
    expect((await verifiedWithFirstJwks(tokens.access_token)).payload).toMatchObject({ client_id: clientId, act: "user" });
    const workspaces = await fetch(`${origin}/api/v1/workspaces`, {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    expect(workspaces.status).toBe(200);

    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token as string);
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    await verifiedWithFirstJwks(refreshed.access_token);

    await client.tokenRevocation(config, refreshed.refresh_token as string);
    await expect(client.refreshTokenGrant(config, refreshed.refresh_token as string)).rejects.toMatchObject({
      error: "invalid_grant",
    });
  });

  it("gets the demo web app a client-credentials token with its installation's scopes, and revokes it", async () => {
    const { clientId, clientSecret } = demoClient(true);
    const config = await client.discovery(
      new URL(origin),
      clientId,
      undefined,
      client.ClientSecretBasic(clientSecret as string),
      {
        algorithm: "oauth2",
        execute,
      },
    );
    const tokens = await client.clientCredentialsGrant(config);
    const { payload } = await verifiedWithFirstJwks(tokens.access_token);
    expect(payload).toMatchObject({ sub: clientId, act: "app" });
    const call = () => fetch(`${origin}/api/v1/workspaces`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect((await call()).status).toBe(200);
    await client.tokenRevocation(config, tokens.access_token);
    // The grant is revoked at once; isolates stop its access tokens within 30 s (oauth-credentials-flow.test.ts).
    const control = await stack.mf.getD1Database("CONTROL_DB", "crm-gateway");
    const grant = await control
      .prepare("SELECT revoked_at AS revokedAt FROM oauth_grants WHERE id = ?")
      .bind(payload.grant_id)
      .first<{ revokedAt: number | null }>();
    expect(grant?.revokedAt).toEqual(expect.any(Number));
  });

  it("registers a confidential client dynamically (client_secret_basic) and runs the code flow with it", async () => {
    const redirectUri = "http://127.0.0.1:43117/callback";
    const config = await client.dynamicClientRegistration(
      new URL(origin),
      { redirect_uris: [redirectUri], client_name: "openid-client", token_endpoint_auth_method: "client_secret_basic" },
      undefined,
      { algorithm: "oauth2", execute },
    );
    expect(config.clientMetadata().client_secret).toEqual(expect.any(String));
    const tokens = await codeFlow(config, redirectUri);
    await verifiedWithFirstJwks(tokens.access_token);
    await client.tokenRevocation(config, tokens.refresh_token as string);
  });
});
