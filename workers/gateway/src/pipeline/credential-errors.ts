import { ApiError, type Scope } from "@crm/contracts";
import { resourceMetadataUrl } from "../oauth/resources";

/** The 401 and 403 failures of RFC 6750, each with its `WWW-Authenticate` challenge. */
const realm = 'Bearer realm="api"';

export const unauthorized = () =>
  new ApiError("unauthorized", "Send a token as `Authorization: Bearer <token>`", undefined, { "www-authenticate": realm });

export const invalidToken = (reason: string) =>
  new ApiError("invalid_token", `The token is ${reason}`, undefined, {
    "www-authenticate": `${realm}, error="invalid_token"`,
  });

/** `askFor`: the scopes the challenge tells a client to request (an MCP step-up keeps those it has). */
export const insufficientScope = (scope: Scope, askFor: readonly Scope[] = [scope]) =>
  new ApiError(
    "insufficient_scope",
    `This operation needs the scope ${scope}`,
    { requiredScope: scope },
    {
      "www-authenticate": `${realm}, error="insufficient_scope", scope="${askFor.join(" ")}"`,
    },
  );

/** A verified token whose scopes are all unknown here (another resource's, or none): it may do nothing. */
export const noKnownScope = () =>
  new ApiError("insufficient_scope", "The token grants no scope of this API", undefined, {
    "www-authenticate": `${realm}, error="insufficient_scope"`,
  });

/** A console session cookie sent where it is not accepted: from another origin, or an unsafe method without the CSRF token. */
export const sessionRefused = (reason: string) => new ApiError("forbidden", `The console session is refused: ${reason}`);

/**
 * A refused credential's challenge naming the RFC 9728 metadata of the protected resource the request
 * reached (section 5.1), where a client learns how to get a token for it. REST keeps its realm beside
 * it; an MCP client is given the metadata alone (`keepRealm` false). Anything else passes unchanged.
 */
export function withResourceMetadata(error: unknown, resource: string, keepRealm: boolean): unknown {
  const challenge = error instanceof ApiError ? error.headers["www-authenticate"] : undefined;
  if (!(error instanceof ApiError) || challenge === undefined || !challenge.startsWith(realm)) return error;
  const metadata = `resource_metadata="${resourceMetadataUrl(resource)}"`;
  const named = challenge.replace('realm="api"', keepRealm ? `realm="api", ${metadata}` : metadata);
  return new ApiError(
    error.code,
    error.message,
    error.details,
    { ...error.headers, "www-authenticate": named },
    error.retryAfterMs,
  );
}
