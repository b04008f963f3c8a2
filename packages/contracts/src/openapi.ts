import { OpenAPIHono } from "@hono/zod-openapi";
import { apiIntroduction } from "./api-introduction";
import { catalogue } from "./catalogue";
import { tagDescriptions } from "./operation";
import { responseHeaders } from "./responses";
import { withPropertyExamples } from "./schema-examples";
import { scopeDescriptions } from "./scopes";

export const apiVersion = "1.0.0";

/**
 * The public OpenAPI 3.1 document is generated from the route catalogue and nothing else. `origin`
 * is where the gateway is reached (`https://<host>`); paths are relative to `{origin}/api/v1`.
 */
const serviceOrganizationHeader = {
  name: "X-Service-Organization-Id",
  in: "header" as const,
  required: false,
  description:
    "The organization a user credential acts in when the user belongs to several (an OAuth token without `org`, a console session): 400 `organization_required` without it, listing them; 400 `organization_mismatch` when it names an organization the credential does not act for. An API key or app token acts in its own organization; naming another is 400 `organization_mismatch`.",
  // No example: a try-it client would send it, and a made-up organization is 400 for everyone.
  schema: { type: "string" as const, pattern: "^org_[0-9a-z]+$", maxLength: 73 },
};

/** The OAuth scheme names the origin's authorization server endpoints. */
const serviceOAuthScheme = (origin: string) => ({
  type: "oauth2" as const,
  description:
    "OAuth 2.1 access token issued by the gateway's authorization server (metadata at `/.well-known/oauth-authorization-server`, keys at `/.well-known/jwks.json`): a short-lived JWT (ES256, `exp` at most 1 hour) following RFC8725, the JWT Best Current Practices (one allowed algorithm, issuer and audience checked, `alg: none` refused). Request it with `resource` = this server's URL (the audience the API accepts); authorization code needs PKCE (S256). Authorization-code clients renew it with their refresh token; client-credentials clients (apps installed in an organization) run the grant again. A token of a user in several organizations names one per request in `X-Service-Organization-Id`.",
  flows: {
    authorizationCode: {
      authorizationUrl: `${origin}/oauth/authorize`,
      tokenUrl: `${origin}/oauth/token`,
      refreshUrl: `${origin}/oauth/token`,
      scopes: scopeDescriptions,
    },
    clientCredentials: { tokenUrl: `${origin}/oauth/token`, scopes: scopeDescriptions },
  },
});

/** The public OpenAPI 3.1 document at `origin`, generated from the catalogue (the build's way; the gateway bundles the template). */
export function openApiDocument(origin: string) {
  return openApiDocumentAt(openApiTemplate(), origin);
}

export type OpenApiDocument = ReturnType<typeof openApiTemplate>;

/** Where the template names the origin before `openApiDocumentAt` puts the real one in. */
const templateOrigin = "https://origin.invalid";

/**
 * The document with everything but its origin: what is costly to generate (every route's schemas,
 * over 100 ms in V8), built once at build time by `scripts/write-bundled-catalogue.mjs` and bundled
 * into the gateway, so an isolate only parses it (issue 30).
 */
export function openApiTemplate() {
  const generator = new OpenAPIHono();
  const registry = generator.openAPIRegistry;
  registry.registerComponent("securitySchemes", "ApiKeyBearer", {
    type: "http",
    scheme: "bearer",
    bearerFormat: "crm_<prefix>_<secret>",
    description: "An API key created in the account settings, sent as `Authorization: Bearer <API_KEY>`.",
  });
  registry.registerComponent("securitySchemes", "ServiceOAuth", serviceOAuthScheme(templateOrigin));
  registry.registerComponent("securitySchemes", "ConsoleSession", {
    type: "apiKey",
    in: "cookie",
    name: "__Host-session",
    description:
      "The console's session cookie, set at sign-in on `/console/sign-in`. Accepted from the same origin only; unsafe methods also need the `X-CSRF-Token` header of the console page. Only the `/api-keys` routes take it.",
  });
  registry.registerComponent("securitySchemes", "WebhookSignature", {
    type: "apiKey",
    in: "header",
    name: "webhook-signature",
    description:
      "Standard Webhooks: `webhook-signature: v1,<base64 HMAC-SHA256 of webhook-id.webhook-timestamp.body>` with the connection's `whsec_` secret, beside `webhook-id` and `webhook-timestamp` (within 5 minutes). Only the inbound provider routes take it.",
  });
  for (const [name, header] of Object.entries(responseHeaders)) registry.registerComponent("headers", name, header);
  registry.registerComponent("parameters", "ServiceOrganizationId", serviceOrganizationHeader);
  for (const operation of catalogue) registry.registerPath(operation.route);
  const document = generator.getOpenAPI31Document({
    openapi: "3.1.0",
    info: {
      title: "CRM and inbox API",
      version: apiVersion,
      description: apiIntroduction,
    },
    servers: [],
    // Only groups that hold operations; the catalogue decides, not this list.
    tags: [...new Set(catalogue.map((operation) => operation.tag))].map((name) => ({ name, description: tagDescriptions[name] })),
  });
  // A common request header of every operation a user credential calls (the reference lists it so):
  // declared once as a component and referred to by each, not repeated in every route of the catalogue.
  for (const operation of catalogue.filter((entry) => entry.auth === "bearer" || entry.auth === "session")) {
    const described = document.paths?.[operation.path]?.[operation.method];
    if (described)
      described.parameters = [...(described.parameters ?? []), { $ref: "#/components/parameters/ServiceOrganizationId" }];
  }
  // OpenAPI 3.1 licence by SPDX identifier (the generator's config type predates the field).
  document.info.license = { name: "Proprietary", identifier: "LicenseRef-Proprietary" };
  return withPropertyExamples(document);
}

/**
 * The template at `origin`: its server, OAuth endpoints and contact, the only parts that name it.
 * A new object over the template's own parts (shared, never changed): cheap enough per origin.
 */
export function openApiDocumentAt(template: OpenApiDocument, origin: string): OpenApiDocument {
  const environment = /^https?:\/\/(localhost|127\.0\.0\.1)(:|$)/.test(origin) ? "local development" : "production";
  const schemes = template.components?.securitySchemes ?? {};
  return {
    ...template,
    info: { ...template.info, contact: { name: "API reference and support", url: `${origin}/api/v1/docs` } },
    servers: [
      {
        url: `${origin}/api/v1`,
        description: `Universal endpoint (${environment}); routes each request to the caller's region`,
        "x-internal": false,
      },
    ],
    components: { ...template.components, securitySchemes: { ...schemes, ServiceOAuth: serviceOAuthScheme(origin) } },
  };
}
