import { ApiError, type Scope } from "@crm/contracts";

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
