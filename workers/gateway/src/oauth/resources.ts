/**
 * The protected resources tokens can be issued for (RFC 8707) and the endpoints of this
 * authorization server, all at the gateway's origin: the issuer is the origin itself.
 */
export const apiResource = (origin: string) => `${origin}/api/v1`;
export const mcpResource = (origin: string) => `${origin}/mcp`;
/** RFC 9728: where the MCP endpoint's protected-resource metadata is published. */
export const mcpResourceMetadata = (origin: string) => `${origin}/.well-known/oauth-protected-resource/mcp`;
export const resourcesOf = (origin: string) => [apiResource(origin), mcpResource(origin)];

export const oauthPaths = {
  authorize: "/oauth/authorize",
  token: "/oauth/token",
  register: "/oauth/register",
  revoke: "/oauth/revoke",
  jwks: "/.well-known/jwks.json",
} as const;

/** Where the console signs a user in; `return_to` brings them back to the authorization request. */
export const consoleSignInPath = "/console/sign-in";

/** The RFC 8707 `resource` of a request: the REST API when absent, else exactly one of ours (`invalid_target` otherwise). */
export function resolveResource(origin: string, requested: string | null): string | null {
  if (requested === null) return apiResource(origin);
  return resourcesOf(origin).includes(requested) ? requested : null;
}
