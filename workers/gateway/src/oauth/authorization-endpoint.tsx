import { control, newId } from "@crm/db";
import { eq } from "drizzle-orm";
import type { DrizzleD1Database } from "drizzle-orm/d1";
import type { Context } from "hono";
import { gatewayConfig } from "../config";
import type { GatewayAppEnv } from "../env";
import { randomSecret, secretHash } from "../identity/identity-secret";
import { type ConsoleSession, csrfTokenFor, csrfTokenValid, readSession, sessionTokenOf } from "../identity/sessions";
import {
  AuthorizationPageError,
  AuthorizationRedirectError,
  checkRequest,
  redirectTo,
  verifyClient,
} from "./authorization-request";
import { findClient } from "./clients";
import { consentLifetimeMs, readConsentReference, signConsentReference } from "./consent-reference";
import { formParams, type OAuthParams, optional } from "./form";
import { grantRow } from "./grants";
import { OAuthError } from "./oauth-error";
import { ConsentPage } from "./pages";
import { consoleSignInPath, mcpResources } from "./resources";

const { oauthAuthorizationCodes, oauthGrants, organizationMembers, organizations, users } = control;

/** Authorization codes are single use and live 60 s. */
const authorizationCodeLifetimeMs = 60_000;

/** Pages of the authorization server are never cached, framed (clickjacking of Allow) or given scripts. */
export const pageHeaders = {
  "cache-control": "no-store",
  "x-frame-options": "DENY",
  "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
  "referrer-policy": "no-referrer",
} as const;

async function currentSession(c: Context<GatewayAppEnv>): Promise<ConsoleSession | null> {
  const token = sessionTokenOf(c);
  return token ? readSession(c.var.controlDb, token) : null;
}

/** The signed-in user's e-mail and the organizations they belong to, by name. */
async function userWithOrganizations(db: DrizzleD1Database, userId: string) {
  const [user] = await db.select({ email: users.email }).from(users).where(eq(users.id, userId));
  const memberships = await db
    .select({ id: organizations.id, name: organizations.name })
    .from(organizationMembers)
    .innerJoin(organizations, eq(organizations.id, organizationMembers.organizationId))
    .where(eq(organizationMembers.userId, userId))
    .orderBy(organizations.name);
  if (!user || memberships.length === 0)
    throw new AuthorizationPageError(
      "No organization",
      "Your account belongs to no organization, so there is nothing to authorize.",
      403,
    );
  return { email: user.email, organizations: memberships };
}

/**
 * `GET /oauth/authorize`: checks the client and redirect URI, sends a visitor without a console
 * session to sign in (and back here after) whatever else the request holds, so that nobody is sent
 * to a client's URI by a link alone; then checks the rest and shows the signed-in user the consent page.
 */
export async function showAuthorization(c: Context<GatewayAppEnv>): Promise<Response> {
  const url = new URL(c.req.url);
  const db = c.var.controlDb;
  const verified = await verifyClient(db, url.searchParams);
  const { client } = verified;
  const session = await currentSession(c);
  // The return address is this very request, a path of our own origin: the sign-in page cannot be made to send anyone elsewhere.
  if (!session) return c.redirect(`${consoleSignInPath}?return_to=${encodeURIComponent(`${url.pathname}${url.search}`)}`, 302);
  const request = checkRequest(url.origin, verified);
  const user = await userWithOrganizations(db, session.userId);
  const now = Date.now();
  const secret = gatewayConfig(c.env).identitySecret;
  const reference = await signConsentReference(secret, {
    request,
    sessionId: session.id,
    grantId: newId("grt", now),
    expiresAt: now + consentLifetimeMs,
  });
  const page = (
    <ConsentPage
      clientName={client.name}
      selfRegistered={client.registeredVia === "dynamic"}
      redirectHost={new URL(request.redirectUri).host}
      userEmail={user.email}
      scopes={request.scopes}
      resourceName={mcpResources(url.origin).includes(request.resource) ? "MCP server" : "REST API"}
      organizations={user.organizations}
      selectedOrganizationId={session.organizationId}
      reference={reference}
      csrfToken={await csrfTokenFor(secret, session.id)}
    />
  );
  return c.html(page, 200, pageHeaders);
}

/** The organization the grant is for: the only one, the one chosen, or none ("all my organizations"). */
function chosenOrganization(form: OAuthParams, memberships: { id: string }[]): string | null {
  const [only] = memberships;
  const chosen = optional(form, "organization");
  if (memberships.length === 1 && only && (chosen === null || chosen === only.id)) return only.id;
  if (chosen === null) return null;
  if (memberships.some((organization) => organization.id === chosen)) return chosen;
  throw new AuthorizationPageError("Unknown organization", "You are not a member of the organization chosen on the form.");
}

/**
 * `POST /oauth/authorize`, the consent form. It counts only from the session that saw the page (its
 * cookie and CSRF token) with the page's signed reference; Deny sends `access_denied` back, Allow
 * creates the grant and a single-use code (60 s), in one batch.
 */
export async function answerConsent(c: Context<GatewayAppEnv>): Promise<Response> {
  const origin = new URL(c.req.url).origin;
  const db = c.var.controlDb;
  const secret = gatewayConfig(c.env).identitySecret;
  let form: OAuthParams;
  try {
    form = await formParams(c.req.raw);
  } catch (error) {
    if (error instanceof OAuthError) throw new AuthorizationPageError("Invalid consent form", error.description);
    throw error;
  }
  const session = await currentSession(c);
  if (!session)
    throw new AuthorizationPageError("Signed out", "Your console session has ended. Start again from the application.", 401);
  if (!(await csrfTokenValid(secret, session.id, optional(form, "csrf_token"))))
    throw new AuthorizationPageError(
      "Form expired",
      "This form was not issued to your session. Start again from the application.",
      403,
    );
  const now = Date.now();
  const reference = await readConsentReference(secret, optional(form, "reference"), session.id, now);
  if (!reference)
    throw new AuthorizationPageError(
      "Form expired",
      "This consent form has expired or is not yours. Start again from the application.",
    );
  const { request } = reference;
  const client = await findClient(db, request.clientId);
  if (!client) throw new AuthorizationPageError("Unknown application", "The application was removed.");
  const decision = optional(form, "decision");
  if (decision === "deny")
    throw new AuthorizationRedirectError(
      request.redirectUri,
      request.state,
      new OAuthError("access_denied", "The user denied access"),
    );
  if (decision !== "allow") throw new AuthorizationPageError("Invalid consent form", "Choose Allow or Deny.");

  const user = await userWithOrganizations(db, session.userId);
  const grant = grantRow(
    {
      id: reference.grantId,
      clientId: client.id,
      userId: session.userId,
      organizationId: chosenOrganization(form, user.organizations),
      scopes: request.scopes,
      resource: request.resource,
    },
    now,
  );
  const code = randomSecret();
  try {
    await db.batch([
      db.insert(oauthGrants).values(grant),
      db.insert(oauthAuthorizationCodes).values({
        codeHash: await secretHash(code),
        grantId: grant.id,
        redirectUri: request.redirectUri,
        codeChallenge: request.codeChallenge,
        createdAt: now,
        expiresAt: now + authorizationCodeLifetimeMs,
      }),
    ]);
  } catch (error) {
    // The grant id was reserved by the page: taken means this form was already answered.
    const [answered] = await db.select({ id: oauthGrants.id }).from(oauthGrants).where(eq(oauthGrants.id, grant.id));
    if (answered)
      throw new AuthorizationPageError(
        "Already answered",
        "This consent form was already answered. Start again from the application.",
      );
    throw error;
  }
  return c.redirect(redirectTo(request.redirectUri, origin, { code, state: request.state }), 303);
}
