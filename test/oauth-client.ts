import { env } from "cloudflare:test";
import { exports } from "cloudflare:workers";
import { control, newId } from "@crm/db";
import { drizzle } from "drizzle-orm/d1";
import * as oauth from "oauth4webapi";
import { secretHash } from "../workers/gateway/src/identity/identity-secret";
import { createSession } from "../workers/gateway/src/identity/sessions";
import { createOrganization } from "./fixtures";

/**
 * OAuth tests drive the gateway with `oauth4webapi`, a strict client nobody here wrote, through the
 * gateway's `fetch` (no port): the loopback origin is plain http, hence `allowInsecureRequests`.
 * The browser's part (the consent page) is played by `authorizeInBrowser`.
 */
export const origin = "http://127.0.0.1:8787";
export const apiResource = `${origin}/api/v1`;
export const mcpResource = `${origin}/mcp`;

const gateway = (exports as unknown as { default: Fetcher }).default;
export const db = () => drizzle(env.CONTROL_DB);

/** Every test client comes from an address of its own, so the per-address limits of one test never touch another. */
export function clientAddress(): string {
  return `2001:db8:${crypto.randomUUID().slice(0, 4)}:${crypto.randomUUID().slice(0, 4)}::1`;
}

/** A fetch into the gateway under test from one client address. */
export function gatewayFetch(address = clientAddress()) {
  return (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const headers = new Headers(request.headers);
    headers.set("cf-connecting-ip", address);
    return gateway.fetch(new Request(request, { headers, redirect: "manual" }));
  };
}

export function clientOptions(address = clientAddress()) {
  return { [oauth.customFetch]: gatewayFetch(address), [oauth.allowInsecureRequests]: true } as const;
}

let discovered: Promise<oauth.AuthorizationServer> | undefined;

/** RFC 8414 discovery, as a client configured with the issuer would do it. */
export function authorizationServer(): Promise<oauth.AuthorizationServer> {
  discovered ??= (async () => {
    const issuer = new URL(origin);
    const response = await oauth.discoveryRequest(issuer, { algorithm: "oauth2", ...clientOptions() });
    return oauth.processDiscoveryResponse(issuer, response);
  })();
  return discovered;
}

/** A public client registered through RFC 7591 dynamic registration, as an MCP client does. */
export async function registerPublicClient(redirectUri = "http://127.0.0.1:33418/callback") {
  const as = await authorizationServer();
  const response = await oauth.dynamicClientRegistrationRequest(
    as,
    { redirect_uris: [redirectUri], client_name: "Test MCP client", token_endpoint_auth_method: "none" },
    clientOptions(),
  );
  const client = (await oauth.processDynamicClientRegistrationResponse(response)) as oauth.Client;
  return { client, redirectUri, auth: oauth.None() };
}

/** A confidential web app, set up by an operator (not registrable dynamically), optionally installed in organizations. */
export async function createConfidentialApp(
  options: { installations?: { organizationId: string; scopes: string[] }[]; grantTypes?: control.OAuthGrantType[] } = {},
) {
  const clientId = newId("cli");
  const secret = `secret-${crypto.randomUUID()}`;
  const redirectUri = "https://app.example/oauth/callback";
  const now = Date.now();
  await db()
    .insert(control.oauthClients)
    .values({
      id: clientId,
      name: "Acme Reporting",
      type: "confidential",
      secretHash: await secretHash(secret),
      redirectUris: [redirectUri],
      grantTypes: options.grantTypes ?? ["authorization_code", "refresh_token", "client_credentials"],
      registeredVia: "manual",
      createdAt: now,
    });
  for (const installation of options.installations ?? []) {
    await db()
      .insert(control.oauthAppInstallations)
      .values({ clientId, ...installation, createdAt: now });
  }
  const client: oauth.Client = { client_id: clientId };
  return { client, secret, redirectUri, auth: oauth.ClientSecretBasic(secret) };
}

/** A user signed in to the console: a session row made with the sessions module (what sign-in does). */
export async function signedInUser(options: { extraOrganizations?: number } = {}) {
  const home = await createOrganization();
  const organizationIds = [home.organizationId];
  for (let i = 0; i < (options.extraOrganizations ?? 0); i++) {
    const other = await createOrganization();
    await db()
      .insert(control.organizationMembers)
      .values({ organizationId: other.organizationId, userId: home.userId, role: "member", createdAt: Date.now() });
    organizationIds.push(other.organizationId);
  }
  const { token, session } = await createSession(db(), {
    userId: home.userId,
    organizationId: organizationIds.length === 1 ? home.organizationId : null,
  });
  return { userId: home.userId, organizationIds, sessionId: session.id, cookie: `__Host-session=${token}` };
}

export interface PkceRequest {
  verifier: string;
  state: string;
  url: URL;
}

/** The authorization URL a client sends the browser to, with PKCE S256 and state; `extra` adds or replaces parameters. */
export async function authorizationUrl(
  client: oauth.Client,
  redirectUri: string,
  extra: Record<string, string | null> = {},
): Promise<PkceRequest> {
  const as = await authorizationServer();
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL(as.authorization_endpoint as string);
  const parameters: Record<string, string | null> = {
    response_type: "code",
    client_id: client.client_id,
    redirect_uri: redirectUri,
    scope: "crm:records:read tasks:read",
    state,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: "S256",
    ...extra,
  };
  for (const [name, value] of Object.entries(parameters)) if (value !== null) url.searchParams.set(name, value);
  return { verifier, state, url };
}

/** The hidden fields of the consent form, as a browser would submit them. */
export function consentForm(html: string): { reference: string; csrfToken: string } {
  const field = (name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1];
  const reference = field("reference");
  const csrfToken = field("csrf_token");
  if (!reference || !csrfToken) throw new Error(`no consent form in: ${html.slice(0, 500)}`);
  return { reference, csrfToken };
}

/** Posts the consent form as the browser would, with the session cookie. */
export function postConsent(cookie: string | null, fields: Record<string, string>, address = clientAddress()) {
  return gatewayFetch(address)(`${origin}/oauth/authorize`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...(cookie ? { cookie } : {}) },
    body: new URLSearchParams(fields),
  });
}

/**
 * The browser's part of the code flow: open the authorization URL with the session, read the consent
 * page, answer it. Returns the redirect back to the client (its Location as a URL).
 */
export async function authorizeInBrowser(
  url: URL,
  cookie: string,
  answer: { decision?: "allow" | "deny"; organization?: string } = {},
): Promise<URL> {
  const page = await gatewayFetch()(url, { headers: { cookie } });
  if (page.status !== 200) throw new Error(`consent page answered ${page.status}: ${await page.text()}`);
  const { reference, csrfToken } = consentForm(await page.text());
  const fields: Record<string, string> = { reference, csrf_token: csrfToken, decision: answer.decision ?? "allow" };
  if (answer.organization !== undefined) fields.organization = answer.organization;
  const response = await postConsent(cookie, fields);
  const location = response.headers.get("location");
  if (response.status !== 303 || !location) throw new Error(`consent answered ${response.status}: ${await response.text()}`);
  return new URL(location);
}

/** Code flow from start to tokens: authorization URL, consent, callback validation, code exchange. */
export async function codeFlow(
  registered: { client: oauth.Client; redirectUri: string; auth: oauth.ClientAuth },
  cookie: string,
  extra: Record<string, string | null> = {},
) {
  const request = await authorizationUrl(registered.client, registered.redirectUri, extra);
  const callback = await authorizeInBrowser(request.url, cookie);
  const tokens = await exchangeCode(registered, request, callback);
  return { tokens, code: callback.searchParams.get("code") as string, verifier: request.verifier };
}

/** The error a strict client raises for a refused token request, or null if it succeeded. */
export async function tokenError(attempt: Promise<unknown>): Promise<{ error: string; status: number } | null> {
  try {
    await attempt;
    return null;
  } catch (error) {
    if (error instanceof oauth.ResponseBodyError) return { error: error.error, status: error.status };
    // A 401 with a challenge (invalid_client on Basic auth) surfaces as the challenge; the body still names the error.
    if (error instanceof oauth.WWWAuthenticateChallengeError)
      return { error: (await error.response.json<{ error: string }>()).error, status: error.status };
    throw error;
  }
}

/**
 * The client's side of the redirect: the code checked against the request's state, exchanged with
 * the PKCE verifier at the token endpoint. `overrides` sends another verifier or redirect URI, for
 * the refusals.
 */
export async function exchangeCode(
  registered: { client: oauth.Client; redirectUri: string; auth: oauth.ClientAuth },
  request: PkceRequest,
  callback: URL,
  overrides: { verifier?: string; redirectUri?: string } = {},
) {
  const as = await authorizationServer();
  const params = oauth.validateAuthResponse(as, registered.client, callback, request.state);
  const response = await oauth.authorizationCodeGrantRequest(
    as,
    registered.client,
    registered.auth,
    params,
    overrides.redirectUri ?? registered.redirectUri,
    overrides.verifier ?? request.verifier,
    clientOptions(),
  );
  return oauth.processAuthorizationCodeResponse(as, registered.client, response);
}
