/**
 * The errors of the OAuth endpoints (RFC 6749 section 5.2, RFC 7009, RFC 7591, RFC 8707): a body
 * `{ error, error_description }` rather than the API's envelope, since OAuth clients read that shape.
 */
export type OAuthErrorCode =
  | "invalid_request"
  | "invalid_client"
  | "invalid_grant"
  | "unauthorized_client"
  | "unsupported_grant_type"
  | "unsupported_response_type"
  | "invalid_scope"
  | "invalid_target"
  | "access_denied"
  | "invalid_redirect_uri"
  | "invalid_client_metadata"
  | "rate_limited";

const statusOf: Record<OAuthErrorCode, number> = {
  invalid_request: 400,
  invalid_client: 401,
  invalid_grant: 400,
  unauthorized_client: 400,
  unsupported_grant_type: 400,
  unsupported_response_type: 400,
  invalid_scope: 400,
  invalid_target: 400,
  access_denied: 403,
  invalid_redirect_uri: 400,
  invalid_client_metadata: 400,
  rate_limited: 429,
};

export class OAuthError extends Error {
  readonly status: number;

  constructor(
    readonly code: OAuthErrorCode,
    readonly description: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(description);
    this.name = "OAuthError";
    this.status = statusOf[code];
  }
}

/** Token responses and their errors are never cached (RFC 6749 section 5.1). */
export const noStore = { "cache-control": "no-store", pragma: "no-cache" } as const;

export function oauthErrorResponse(error: OAuthError, requestId: string): Response {
  return Response.json(
    { error: error.code, error_description: error.description },
    { status: error.status, headers: { ...noStore, ...error.headers, "x-request-id": requestId } },
  );
}
