import { isScope } from "@crm/contracts";
import type { DrizzleD1Database } from "drizzle-orm/d1";
import { jwtVerify } from "jose";
import { type AccessTokenClaims, accessTokenType } from "../identity/access-tokens";
import { accessTokenLifetimeSeconds, signingAlgorithm } from "../identity/signing-keys";
import { verificationKeys } from "./access-token-keys";
import type { Actor } from "./actor";
import { organizationHeader, selectOrganization } from "./authorize";
import { invalidToken, noKnownScope } from "./credential-errors";
import type { OperationRequest } from "./operation-call";
import { organizationById, userOrganizations } from "./organization-memberships";
import { grantRevoked } from "./revoked-grants";

/** Clocks of the signer and the verifier may disagree by this much (`exp`, `iat`). */
const clockLeewaySeconds = 30;

const compactJws = /^[\w-]+\.[\w-]+\.[\w-]*$/;

/** Whether the token has the shape of a JWT (three base64url parts); an API key never does. */
export const isJwt = (token: string): boolean => compactJws.test(token);

const stringClaims = ["sub", "scope", "client_id", "grant_id", "jti"] as const;

/**
 * Tokens this isolate has verified, by audience and token, until they expire: a client sends the
 * same token for up to an hour, and the signature check is the JWT path's main cost per request.
 * Expiry and revocation are still checked on every request. Bounded; the oldest entries go first.
 */
const verifiedTokens = new Map<string, AccessTokenClaims>();
const verifiedTokensMax = 10_000;

function remember(cacheKey: string, claims: AccessTokenClaims): void {
  if (verifiedTokens.size >= verifiedTokensMax) {
    const [oldest] = verifiedTokens.keys();
    if (oldest !== undefined) verifiedTokens.delete(oldest);
  }
  verifiedTokens.set(cacheKey, claims);
}

async function verifySignatureAndClaims(
  db: DrizzleD1Database,
  token: string,
  kid: string,
  expected: { issuer: string; audience: string[] },
  now: number,
): Promise<AccessTokenClaims> {
  const keys = await verificationKeys(db, kid, now);
  let claims: AccessTokenClaims;
  try {
    const verified = await jwtVerify<AccessTokenClaims>(token, keys, {
      algorithms: [signingAlgorithm],
      typ: accessTokenType,
      issuer: expected.issuer,
      audience: expected.audience,
      clockTolerance: clockLeewaySeconds,
      maxTokenAge: accessTokenLifetimeSeconds,
      currentDate: new Date(now),
      requiredClaims: ["exp", "iat", ...stringClaims, "act"],
    });
    claims = verified.payload;
  } catch {
    // Which check failed stays with the server: the client's remedy is the same, a new token.
    throw invalidToken("not a valid access token for this API");
  }
  const malformed = stringClaims.some((name) => typeof claims[name] !== "string") || !["user", "app"].includes(claims.act);
  if (malformed) throw invalidToken("not a valid access token for this API");
  return claims;
}

/**
 * Verifies an access token (DESIGN.md section 3) without a storage read on the hot path: ES256 only
 * (`none` and every other algorithm refused), `typ: at+jwt`, signed by a published key (`kid`), the
 * gateway as issuer, `audience`, `exp`/`iat` within a small leeway and no older than a token can
 * be, and a grant this isolate does not know to be revoked.
 */
export async function verifyAccessToken(
  db: DrizzleD1Database,
  token: string,
  kid: string,
  expected: { issuer: string; audience: string[] },
  now = Date.now(),
): Promise<AccessTokenClaims> {
  const cacheKey = `${expected.issuer} ${expected.audience.join(" ")} ${token}`;
  let claims = verifiedTokens.get(cacheKey);
  if (!claims || claims.exp + clockLeewaySeconds <= now / 1000) {
    verifiedTokens.delete(cacheKey);
    claims = await verifySignatureAndClaims(db, token, kid, expected, now);
    remember(cacheKey, claims);
  }
  if (await grantRevoked(db, claims.grant_id, now)) throw invalidToken("revoked");
  return claims;
}

/**
 * The actor of a verified access token. A user's token bound to an organization (`org`) acts there
 * while the user is still a member; one without `org` acts in the organization the request selects
 * (`selectOrganization`). An app's token acts in the organization it was installed in, with no role.
 * Its scopes are the token's that this API knows; none at all → 403 `insufficient_scope`.
 */
export async function accessTokenActor(
  db: DrizzleD1Database,
  claims: AccessTokenClaims,
  request: OperationRequest,
  now = Date.now(),
): Promise<Actor> {
  const scopes = claims.scope.split(" ").filter(isScope);
  if (scopes.length === 0) throw noKnownScope();
  const credential = { type: "oauth" as const, id: claims.grant_id };
  if (claims.act === "app") {
    const organization = claims.org ? await organizationById(db, claims.org, now) : null;
    if (!organization) throw invalidToken("not a valid access token for this API");
    return {
      organizationId: organization.id,
      region: organization.region,
      shard: organization.shard,
      actor: { type: "app", id: claims.client_id },
      credential,
      scopes,
      workspaceIds: null,
      organizationRole: null,
    };
  }
  const choices = await userOrganizations(db, claims.sub, now);
  // A user who left every organization, or the one the token is bound to, takes no access with it.
  const bound = claims.org ? choices.filter((choice) => choice.id === claims.org) : choices;
  const [only] = bound;
  if (!only) throw invalidToken("revoked");
  const organization = claims.org ? only : selectOrganization(bound, request.headers.get(organizationHeader), null);
  return {
    organizationId: organization.id,
    region: organization.region,
    shard: organization.shard,
    actor: { type: "user", id: claims.sub },
    credential,
    scopes,
    workspaceIds: null,
    organizationRole: organization.role,
  };
}
