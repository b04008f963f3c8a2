import type { DrizzleD1Database } from "drizzle-orm/d1";
import { type JWTPayload, SignJWT } from "jose";
import { accessTokenLifetimeSeconds, activeSigningKey, signingAlgorithm } from "./signing-keys";

/** The JWT `typ` of access tokens (RFC 9068), so no other JWT of ours can pass for one. */
export const accessTokenType = "at+jwt";

/**
 * Claims of an access token (DESIGN.md section 3). `org` is absent for a user of several
 * organizations who chose none (each request then names one); `grant_id` lets a revoked grant stop
 * its tokens before they expire.
 */
export interface AccessTokenClaims extends JWTPayload {
  iss: string;
  /** The RFC 8707 resource the token was issued for: `<origin>/api/v1` or `<origin>/mcp`. */
  aud: string;
  /** The user's id, or the client's for an app. */
  sub: string;
  org?: string;
  /** Granted scopes, space-separated. */
  scope: string;
  client_id: string;
  /** The actor type: a user's token or an app's (client credentials). */
  act: "user" | "app";
  grant_id: string;
  iat: number;
  exp: number;
  jti: string;
}

export interface AccessTokenSubject {
  issuer: string;
  audience: string;
  subject: string;
  organizationId: string | null;
  scopes: readonly string[];
  clientId: string;
  actor: "user" | "app";
  grantId: string;
}

/** Signs an access token with the active ES256 key (header `kid`, `typ: at+jwt`). */
export async function signAccessToken(
  db: DrizzleD1Database,
  secret: string,
  subject: AccessTokenSubject,
  now = Date.now(),
): Promise<{ accessToken: string; expiresIn: number; claims: AccessTokenClaims }> {
  const key = await activeSigningKey(db, secret, now);
  const iat = Math.floor(now / 1000);
  const claims: AccessTokenClaims = {
    iss: subject.issuer,
    aud: subject.audience,
    sub: subject.subject,
    ...(subject.organizationId ? { org: subject.organizationId } : {}),
    scope: subject.scopes.join(" "),
    client_id: subject.clientId,
    act: subject.actor,
    grant_id: subject.grantId,
    iat,
    exp: iat + accessTokenLifetimeSeconds,
    jti: crypto.randomUUID(),
  };
  const accessToken = await new SignJWT(claims)
    .setProtectedHeader({ alg: signingAlgorithm, kid: key.kid, typ: accessTokenType })
    .sign(key.privateKey);
  return { accessToken, expiresIn: accessTokenLifetimeSeconds, claims };
}
