/**
 * The protected resources tokens can be issued for (RFC 8707) and the endpoints of this
 * authorization server, all at the gateway's origin: the issuer is the origin itself.
 */
export const apiResource = (origin: string) => `${origin}/api/v1`;
export const mcpResource = (origin: string) => `${origin}/mcp`;
/**
 * The MCP endpoint under `{base_url}`, a resource of its own (DESIGN.md section 11): a client
 * configured with it checks that the metadata names exactly the URL it was given (RFC 9728 section 3.3).
 */
export const mcpApiResource = (origin: string) => `${origin}/api/v1/mcp`;
/** Both MCP resources: a token for either works on both MCP paths, never on REST. */
export const mcpResources = (origin: string) => [mcpResource(origin), mcpApiResource(origin)];
/** RFC 9728 section 3.1: where a resource's protected-resource metadata is published, derived from its path. */
export const resourceMetadataUrl = (resource: string) => {
  const url = new URL(resource);
  return `${url.origin}/.well-known/oauth-protected-resource${url.pathname}`;
};
export const resourcesOf = (origin: string) => [apiResource(origin), ...mcpResources(origin)];

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
