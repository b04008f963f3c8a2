import { control } from "@crm/db";
import { and, eq, isNull } from "drizzle-orm";
import { secretHash } from "../identity/identity-secret";
import type { OAuthClient } from "./clients";
import { type OAuthParams, optional, required } from "./form";
import { newRefreshToken, revokeGrant, type TokenIssuer, type TokenResponse, tokenResponseFor } from "./grants";
import { OAuthError } from "./oauth-error";
import { verifierMatches } from "./pkce";

const { oauthAuthorizationCodes, oauthGrants, oauthRefreshTokens } = control;

const invalidCode = () => new OAuthError("invalid_grant", "The authorization code is unknown, expired or already used");

/**
 * `grant_type=authorization_code` (RFC 6749 section 4.1.3, PKCE of RFC 7636). A code works once,
 * and a failed attempt uses it up too: presented again, the grant it issued is revoked (section
 * 4.1.2), since one of the two holders is not the client.
 */
export async function exchangeAuthorizationCode(
  issuer: TokenIssuer,
  client: OAuthClient,
  params: OAuthParams,
): Promise<TokenResponse> {
  if (!client.grantTypes.includes("authorization_code"))
    throw new OAuthError("unauthorized_client", "This client may not use the authorization code grant");
  const code = required(params, "code");
  const redirectUri = required(params, "redirect_uri");
  const verifier = required(params, "code_verifier");
  const { db, now } = issuer;
  const codeHash = await secretHash(code);
  const [found] = await db
    .select({ code: oauthAuthorizationCodes, grant: oauthGrants })
    .from(oauthAuthorizationCodes)
    .innerJoin(oauthGrants, eq(oauthGrants.id, oauthAuthorizationCodes.grantId))
    .where(eq(oauthAuthorizationCodes.codeHash, codeHash))
    .limit(1);
  if (!found || found.grant.clientId !== client.id) throw invalidCode();
  const { grant } = found;
  if (found.code.usedAt !== null) {
    await revokeGrant(db, grant.id, now);
    throw invalidCode();
  }
  if (found.code.expiresAt <= now || grant.revokedAt !== null) throw invalidCode();
  // A wrong redirect URI or verifier burns the code (RFC 9700 section 2.1.1): whoever holds a stolen
  // code gets one guess, never a series of them while the code lives.
  const burn = () =>
    db
      .update(oauthAuthorizationCodes)
      .set({ usedAt: now })
      .where(and(eq(oauthAuthorizationCodes.codeHash, codeHash), isNull(oauthAuthorizationCodes.usedAt)));
  if (found.code.redirectUri !== redirectUri) {
    await burn();
    throw new OAuthError("invalid_grant", "redirect_uri differs from the one of the authorization request");
  }
  if (!(await verifierMatches(verifier, found.code.codeChallenge))) {
    await burn();
    throw new OAuthError("invalid_grant", "code_verifier does not match the code_challenge of the authorization request");
  }
  const resource = optional(params, "resource");
  if (resource !== null && resource !== grant.resource)
    throw new OAuthError("invalid_target", "resource differs from the one the user authorized");

  const refresh = client.grantTypes.includes("refresh_token") ? await newRefreshToken(grant.id, now) : null;
  // The code is claimed with a compare-and-set in the same batch that stores the refresh token: of
  // two concurrent exchanges exactly one claims it, and the other revokes the grant as a replay.
  const claim = db
    .update(oauthAuthorizationCodes)
    .set({ usedAt: now })
    .where(and(eq(oauthAuthorizationCodes.codeHash, codeHash), isNull(oauthAuthorizationCodes.usedAt)))
    .returning({ codeHash: oauthAuthorizationCodes.codeHash });
  const [claimed] = refresh ? await db.batch([claim, db.insert(oauthRefreshTokens).values(refresh.row)]) : [await claim];
  if (claimed.length === 0) {
    await revokeGrant(db, grant.id, now);
    throw invalidCode();
  }
  return tokenResponseFor(issuer, grant, grant.scopes, refresh?.token ?? null);
}
