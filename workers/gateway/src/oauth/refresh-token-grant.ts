import { control } from "@crm/db";
import { and, eq, isNull } from "drizzle-orm";
import { secretHash } from "../identity/identity-secret";
import type { OAuthClient } from "./clients";
import { type OAuthParams, optional, required } from "./form";
import { newRefreshToken, revokeGrant, type TokenIssuer, type TokenResponse, tokenResponseFor } from "./grants";
import { OAuthError } from "./oauth-error";
import { parseScopes } from "./requested-scopes";

const { oauthGrants, oauthRefreshTokens, organizationMembers } = control;

const invalidRefreshToken = () => new OAuthError("invalid_grant", "The refresh token is unknown, expired or revoked");

/**
 * `grant_type=refresh_token` (RFC 6749 section 6), rotated on every use (OAuth 2.1): the token
 * presented is spent and a new one returned. A spent token presented again means two parties hold
 * it, so the whole grant is revoked and neither can go on.
 */
export async function refreshAccessToken(issuer: TokenIssuer, client: OAuthClient, params: OAuthParams): Promise<TokenResponse> {
  if (!client.grantTypes.includes("refresh_token"))
    throw new OAuthError("unauthorized_client", "This client may not use refresh tokens");
  const token = required(params, "refresh_token");
  const { db, now } = issuer;
  const tokenHash = await secretHash(token);
  const [found] = await db
    .select({ refresh: oauthRefreshTokens, grant: oauthGrants, memberRole: organizationMembers.role })
    .from(oauthRefreshTokens)
    .innerJoin(oauthGrants, eq(oauthGrants.id, oauthRefreshTokens.grantId))
    .leftJoin(
      organizationMembers,
      and(eq(organizationMembers.organizationId, oauthGrants.organizationId), eq(organizationMembers.userId, oauthGrants.userId)),
    )
    .where(eq(oauthRefreshTokens.tokenHash, tokenHash))
    .limit(1);
  if (!found || found.grant.clientId !== client.id || found.grant.revokedAt !== null) throw invalidRefreshToken();
  const { grant } = found;
  if (found.refresh.usedAt !== null) {
    await revokeGrant(db, grant.id, now);
    throw new OAuthError("invalid_grant", "The refresh token was already used; the grant is revoked");
  }
  if (found.refresh.expiresAt <= now) throw invalidRefreshToken();
  // A user who left the organization the grant is for takes no access with the application.
  if (grant.organizationId !== null && found.memberRole === null) {
    await revokeGrant(db, grant.id, now);
    throw invalidRefreshToken();
  }
  const scopes = narrowedScopes(grant.scopes, optional(params, "scope"));

  const next = await newRefreshToken(grant.id, now);
  const [claimed] = await db.batch([
    db
      .update(oauthRefreshTokens)
      .set({ usedAt: now, replacedBy: next.row.tokenHash })
      .where(and(eq(oauthRefreshTokens.tokenHash, tokenHash), isNull(oauthRefreshTokens.usedAt)))
      .returning({ tokenHash: oauthRefreshTokens.tokenHash }),
    db.insert(oauthRefreshTokens).values(next.row),
  ]);
  // Spent by a concurrent request in the meantime: that is a replay too.
  if (claimed.length === 0) {
    await revokeGrant(db, grant.id, now);
    throw new OAuthError("invalid_grant", "The refresh token was already used; the grant is revoked");
  }
  return tokenResponseFor(issuer, grant, scopes, next.token);
}

/** RFC 6749 section 6: a refresh may ask for fewer scopes than granted, never more. */
function narrowedScopes(granted: string[], requested: string | null): string[] {
  if (requested === null) return granted;
  const parsed = parseScopes(requested);
  if ("problem" in parsed) throw new OAuthError("invalid_scope", parsed.problem);
  const beyond = parsed.scopes.filter((scope) => !granted.includes(scope));
  if (beyond.length > 0) throw new OAuthError("invalid_scope", `Not granted: ${beyond.join(", ")}`);
  return parsed.scopes;
}
