import { control } from "@crm/db";
import { eq } from "drizzle-orm";
import { createLocalJWKSet, jwtVerify } from "jose";
import type { AccessTokenClaims } from "../identity/access-tokens";
import { secretHash } from "../identity/identity-secret";
import { publishedSigningKeys, signingAlgorithm } from "../identity/signing-keys";
import { authenticateClient } from "./clients";
import { formParams, required } from "./form";
import { revokeGrant, type TokenIssuer } from "./grants";

const { oauthGrants, oauthRefreshTokens } = control;

/**
 * `POST /oauth/revoke` (RFC 7009). Revoking a refresh token or an access token revokes the grant
 * behind it: refresh stops at once, access tokens within 60 s. Unknown tokens, and tokens of
 * another client, are answered 200 like any other (section 2.2), so the endpoint tells nothing
 * about tokens the caller does not hold; they are not revoked.
 */
export async function revocationEndpoint(issuer: TokenIssuer, request: Request): Promise<void> {
  const params = await formParams(request);
  const client = await authenticateClient(issuer.db, request.headers, params);
  const token = required(params, "token");
  const grantId = (await accessTokenGrant(issuer, token)) ?? (await refreshTokenGrant(issuer, token));
  if (grantId === null) return;
  const [grant] = await issuer.db.select({ clientId: oauthGrants.clientId }).from(oauthGrants).where(eq(oauthGrants.id, grantId));
  if (grant?.clientId === client.id) await revokeGrant(issuer.db, grantId, issuer.now);
}

/** The grant of one of our live access tokens (signature, type, issuer and expiry checked). */
async function accessTokenGrant(issuer: TokenIssuer, token: string): Promise<string | null> {
  if (token.split(".").length !== 3) return null;
  try {
    const { payload } = await jwtVerify<AccessTokenClaims>(
      token,
      createLocalJWKSet(await publishedSigningKeys(issuer.db, issuer.now)),
      {
        issuer: issuer.origin,
        algorithms: [signingAlgorithm],
        typ: "at+jwt",
        currentDate: new Date(issuer.now),
      },
    );
    return typeof payload.grant_id === "string" ? payload.grant_id : null;
  } catch {
    return null;
  }
}

async function refreshTokenGrant(issuer: TokenIssuer, token: string): Promise<string | null> {
  const [found] = await issuer.db
    .select({ grantId: oauthRefreshTokens.grantId })
    .from(oauthRefreshTokens)
    .where(eq(oauthRefreshTokens.tokenHash, await secretHash(token)))
    .limit(1);
  return found?.grantId ?? null;
}
