import { control, newId } from "@crm/db";
import { and, eq, isNull } from "drizzle-orm";
import type { DrizzleD1Database } from "drizzle-orm/d1";
import { signAccessToken } from "../identity/access-tokens";
import { randomSecret, secretHash } from "../identity/identity-secret";

const { oauthGrants } = control;

export type OAuthGrant = typeof oauthGrants.$inferSelect;

/** Refresh tokens live 30 days from their issue; every use rotates them. */
const refreshTokenLifetimeMs = 30 * 24 * 60 * 60 * 1000;

/** What issuing tokens needs: the control D1, the identity secret, the issuer origin and the time. */
export interface TokenIssuer {
  db: DrizzleD1Database;
  secret: string;
  origin: string;
  now: number;
}

/** The RFC 6749 section 5.1 body of a successful token response. */
export interface TokenResponse {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  refresh_token?: string;
  scope: string;
}

/** Revokes a grant: refresh stops at once; its access tokens stop within 60 s (DESIGN.md section 3). */
export async function revokeGrant(db: DrizzleD1Database, grantId: string, now: number): Promise<void> {
  await db
    .update(oauthGrants)
    .set({ revokedAt: now })
    .where(and(eq(oauthGrants.id, grantId), isNull(oauthGrants.revokedAt)));
}

/** A new refresh token of a grant: the token for the client, the row (its hash) for the database. */
export async function newRefreshToken(grantId: string, now: number) {
  const token = randomSecret();
  const row = { tokenHash: await secretHash(token), grantId, createdAt: now, expiresAt: now + refreshTokenLifetimeMs };
  return { token, row };
}

/** Signs the access token of a grant with the scopes this response grants (a refresh may narrow them). */
export async function tokenResponseFor(
  issuer: TokenIssuer,
  grant: Pick<OAuthGrant, "id" | "clientId" | "userId" | "organizationId" | "resource">,
  scopes: readonly string[],
  refreshToken: string | null,
): Promise<TokenResponse> {
  const { accessToken, expiresIn } = await signAccessToken(
    issuer.db,
    issuer.secret,
    {
      issuer: issuer.origin,
      audience: grant.resource,
      subject: grant.userId ?? grant.clientId,
      organizationId: grant.organizationId,
      scopes,
      clientId: grant.clientId,
      actor: grant.userId === null ? "app" : "user",
      grantId: grant.id,
    },
    issuer.now,
  );
  return {
    access_token: accessToken,
    token_type: "Bearer",
    expires_in: expiresIn,
    ...(refreshToken === null ? {} : { refresh_token: refreshToken }),
    scope: scopes.join(" "),
  };
}

/** The insert of a new grant, with a fresh `grt_` id unless the caller reserved one (the consent page does). */
export function grantRow(grant: Omit<OAuthGrant, "id" | "createdAt" | "revokedAt"> & { id?: string }, now: number): OAuthGrant {
  return { ...grant, id: grant.id ?? newId("grt", now), createdAt: now, revokedAt: null };
}
