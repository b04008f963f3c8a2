import type { Scope } from "@crm/contracts";
import type { DrizzleD1Database } from "drizzle-orm/d1";
import { findClient, isRegisteredRedirectUri, type OAuthClient } from "./clients";
import { type OAuthParams, optional, paramsOf } from "./form";
import { OAuthError } from "./oauth-error";
import { challengePattern } from "./pkce";
import { parseScopes } from "./requested-scopes";
import { resolveResource } from "./resources";

/** An authorization request that passed every check: what the consent page shows and the code binds. */
export interface AuthorizationRequest {
  clientId: string;
  redirectUri: string;
  scopes: Scope[];
  state: string | null;
  codeChallenge: string;
  resource: string;
}

/**
 * A failure before the client and its redirect URI are known to be valid: shown on a page of our
 * own, never sent to a redirect URI that nobody registered (RFC 6749 section 4.1.2.1).
 */
export class AuthorizationPageError extends Error {
  constructor(
    readonly title: string,
    readonly description: string,
    readonly status: 400 | 401 | 403 | 413 = 400,
  ) {
    super(description);
    this.name = "AuthorizationPageError";
  }
}

/** A failure once the redirect URI is trusted: the client learns it at that URI, with its `state`. */
export class AuthorizationRedirectError extends Error {
  constructor(
    readonly redirectUri: string,
    readonly state: string | null,
    readonly error: OAuthError,
  ) {
    super(error.description);
    this.name = "AuthorizationRedirectError";
  }
}

const maxStateLength = 1024;

/** The client and the exact redirect URI a request names, checked, with the rest of its parameters. */
export interface VerifiedClient {
  client: OAuthClient;
  redirectUri: string;
  params: OAuthParams;
}

/**
 * The first checks of `GET /oauth/authorize` (RFC 6749 section 4.1.2.1): the client and the exact
 * redirect URI. A failure is shown on a page of our own, never sent anywhere.
 */
export async function verifyClient(db: DrizzleD1Database, search: URLSearchParams): Promise<VerifiedClient> {
  const params = paramsOf(search);
  if ("repeated" in params)
    throw new AuthorizationPageError("Invalid authorization request", `The parameter ${params.repeated} is repeated.`);
  const clientId = optional(params, "client_id");
  if (clientId === null) throw new AuthorizationPageError("Invalid authorization request", "The request names no client_id.");
  const client = await findClient(db, clientId);
  if (!client) throw new AuthorizationPageError("Unknown application", "No application is registered with this client_id.");
  const redirectUri = optional(params, "redirect_uri");
  if (redirectUri === null || !isRegisteredRedirectUri(client, redirectUri))
    throw new AuthorizationPageError(
      "Invalid redirect URI",
      "The redirect_uri is missing or is not one the application registered, so we cannot send you back to it.",
    );
  return { client, redirectUri, params };
}

/**
 * The rest of the request, once the client and redirect URI are verified and the user is signed in.
 * A failure goes back to the client's redirect URI with `error` and `state`, unless the client
 * registered itself: anyone can register any https URI, so sending a user there from our origin
 * before they have seen the consent page would make this endpoint an open redirector (RFC 9700
 * section 4.11.2). Such a failure is shown on our page instead.
 */
export function checkRequest(origin: string, { client, redirectUri, params }: VerifiedClient): AuthorizationRequest {
  const state = optional(params, "state");
  const fail = (code: OAuthError["code"], description: string) =>
    client.registeredVia === "dynamic"
      ? new AuthorizationPageError("Invalid authorization request", `${description} (${code}).`)
      : new AuthorizationRedirectError(
          redirectUri,
          state !== null && state.length <= maxStateLength ? state : null,
          new OAuthError(code, description),
        );
  if (state !== null && state.length > maxStateLength)
    throw fail("invalid_request", `state is longer than ${maxStateLength} characters`);
  if (optional(params, "response_type") !== "code") throw fail("unsupported_response_type", 'response_type must be "code"');
  if (!client.grantTypes.includes("authorization_code"))
    throw fail("unauthorized_client", "This client may not use the authorization code grant");
  const method = optional(params, "code_challenge_method");
  const codeChallenge = optional(params, "code_challenge");
  if (codeChallenge === null || method === null)
    throw fail("invalid_request", "PKCE is required: send code_challenge with code_challenge_method=S256");
  if (method !== "S256") throw fail("invalid_request", "code_challenge_method must be S256; plain is not supported");
  if (!challengePattern.test(codeChallenge))
    throw fail("invalid_request", "code_challenge is not an S256 challenge (43 base64url characters)");
  const scopes = parseScopes(optional(params, "scope"));
  if ("problem" in scopes) throw fail("invalid_scope", scopes.problem);
  const resource = resolveResource(origin, optional(params, "resource"));
  if (resource === null) throw fail("invalid_target", "resource must be this API or its MCP endpoint");
  return { clientId: client.id, redirectUri, scopes: scopes.scopes, state, codeChallenge, resource };
}

/** The client's redirect URI with the response parameters added (its own query kept), and `iss` (RFC 9207). */
export function redirectTo(redirectUri: string, issuer: string, parameters: Record<string, string | null>): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(parameters)) if (value !== null) url.searchParams.append(name, value);
  url.searchParams.append("iss", issuer);
  return url.href;
}
