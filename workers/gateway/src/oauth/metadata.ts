import { scopes } from "@crm/contracts";
import { apiResource, oauthPaths } from "./resources";

/** RFC 8414 authorization server metadata: the one document a client needs to find everything else. */
export function authorizationServerMetadata(origin: string) {
  const authMethods = ["client_secret_basic", "client_secret_post", "none"];
  return {
    issuer: origin,
    authorization_endpoint: `${origin}${oauthPaths.authorize}`,
    token_endpoint: `${origin}${oauthPaths.token}`,
    registration_endpoint: `${origin}${oauthPaths.register}`,
    revocation_endpoint: `${origin}${oauthPaths.revoke}`,
    jwks_uri: `${origin}${oauthPaths.jwks}`,
    response_types_supported: ["code"],
    response_modes_supported: ["query"],
    grant_types_supported: ["authorization_code", "refresh_token", "client_credentials"],
    token_endpoint_auth_methods_supported: authMethods,
    revocation_endpoint_auth_methods_supported: authMethods,
    code_challenge_methods_supported: ["S256"],
    scopes_supported: [...scopes],
    authorization_response_iss_parameter_supported: true,
    service_documentation: `${apiResource(origin)}/docs`,
  };
}

/** RFC 9728 protected resource metadata of the REST API or one of the MCP endpoint's two resources. */
export function protectedResourceMetadata(origin: string, resource: string) {
  return {
    resource,
    authorization_servers: [origin],
    scopes_supported: [...scopes],
    bearer_methods_supported: ["header"],
    resource_name: resource === apiResource(origin) ? "CRM and inbox REST API" : "CRM and inbox MCP server",
    resource_documentation: `${apiResource(origin)}/docs`,
  };
}
