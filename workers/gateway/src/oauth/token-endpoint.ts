import { exchangeAuthorizationCode } from "./authorization-code-grant";
import { issueClientCredentialsToken } from "./client-credentials-grant";
import { authenticateClient } from "./clients";
import { formParams, required } from "./form";
import type { TokenIssuer, TokenResponse } from "./grants";
import { OAuthError } from "./oauth-error";
import { refreshAccessToken } from "./refresh-token-grant";

const grantHandlers = {
  authorization_code: exchangeAuthorizationCode,
  refresh_token: refreshAccessToken,
  client_credentials: issueClientCredentialsToken,
} as const;

const isGrantType = (value: string): value is keyof typeof grantHandlers => Object.hasOwn(grantHandlers, value);

/** `POST /oauth/token` (RFC 6749 section 3.2): authenticates the client, then runs its grant type. */
export async function tokenEndpoint(issuer: TokenIssuer, request: Request): Promise<TokenResponse> {
  const params = await formParams(request);
  const grantType = required(params, "grant_type");
  if (!isGrantType(grantType))
    throw new OAuthError("unsupported_grant_type", `Unsupported grant_type: ${grantType.slice(0, 64)}`);
  const client = await authenticateClient(issuer.db, request.headers, params);
  return grantHandlers[grantType](issuer, client, params);
}
