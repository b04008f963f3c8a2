import { control } from "@crm/db";
import { and, eq, isNull } from "drizzle-orm";
import type { OAuthClient } from "./clients";
import { type OAuthParams, optional } from "./form";
import { grantRow, type TokenIssuer, type TokenResponse, tokenResponseFor } from "./grants";
import { OAuthError } from "./oauth-error";
import { parseScopes } from "./requested-scopes";
import { resolveResource } from "./resources";

const { oauthAppInstallations, oauthGrants } = control;

/**
 * `grant_type=client_credentials` (RFC 6749 section 4.4): an app acting for an organization it is
 * installed in, within the scopes of that installation. The token's actor is the app (`act: "app"`,
 * `sub` = client id). Its grant (one per client, organization and resource) is what revocation
 * names; no refresh token, since the app can always ask again.
 */
export async function issueClientCredentialsToken(
  issuer: TokenIssuer,
  client: OAuthClient,
  params: OAuthParams,
): Promise<TokenResponse> {
  if (client.type !== "confidential" || !client.grantTypes.includes("client_credentials"))
    throw new OAuthError("unauthorized_client", "This client may not use the client credentials grant");
  const { db, now } = issuer;
  const installations = await db.select().from(oauthAppInstallations).where(eq(oauthAppInstallations.clientId, client.id));
  const organizationId = optional(params, "organization_id");
  const installation =
    organizationId === null
      ? installations.length === 1
        ? installations[0]
        : undefined
      : installations.find((candidate) => candidate.organizationId === organizationId);
  if (!installation) {
    if (organizationId === null && installations.length > 1)
      throw new OAuthError("invalid_request", "The app is installed in several organizations; name one as organization_id");
    throw new OAuthError("unauthorized_client", "The app is not installed in this organization");
  }
  // Without a scope the app gets what its installation granted; a present but empty one is a
  // request for nothing, `invalid_scope` as at the authorization endpoint (so not `optional`, which
  // reads an empty value as absent).
  const requested = params.get("scope");
  let scopes = installation.scopes;
  if (requested !== undefined) {
    const parsed = parseScopes(requested);
    if ("problem" in parsed) throw new OAuthError("invalid_scope", parsed.problem);
    const beyond = parsed.scopes.filter((scope) => !installation.scopes.includes(scope));
    if (beyond.length > 0) throw new OAuthError("invalid_scope", `Not allowed for this installation: ${beyond.join(", ")}`);
    scopes = parsed.scopes;
  }
  const resource = resolveResource(issuer.origin, optional(params, "resource"));
  if (resource === null) throw new OAuthError("invalid_target", "resource must be this API or its MCP endpoint");

  const [existing] = await db
    .select()
    .from(oauthGrants)
    .where(
      and(
        eq(oauthGrants.clientId, client.id),
        isNull(oauthGrants.userId),
        eq(oauthGrants.organizationId, installation.organizationId),
        eq(oauthGrants.resource, resource),
        isNull(oauthGrants.revokedAt),
      ),
    )
    .limit(1);
  let grant = existing;
  if (!grant) {
    grant = grantRow(
      { clientId: client.id, userId: null, organizationId: installation.organizationId, scopes: installation.scopes, resource },
      now,
    );
    await db.insert(oauthGrants).values(grant);
  }
  return tokenResponseFor(issuer, grant, scopes, null);
}
