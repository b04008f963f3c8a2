/**
 * The introduction of the API reference (the OpenAPI `info.description`, the first thing the docs
 * page at `/api/v1/docs` shows): what a new user needs before the first call, one section each.
 */
export const apiIntroduction = `Workspaces, CRM object types, fields, views, records, tasks, notes, the shared inbox, meetings and webhooks of one CRM, over HTTPS and JSON. Every path below is relative to the server URL (\`/api/v1\`).

## Authentication

- **API keys** — create one in the console (\`/console/api-keys\`): choose its scopes, optionally the workspaces it may reach and an expiry. Send it as \`Authorization: Bearer crm_<prefix>_<secret>\`. The full key is shown once; it acts for you, in the organization it was made in.
- **OAuth 2.1** — apps and MCP clients get a short-lived access token (ES256 JWT, at most one hour) from the authorization server (metadata at \`/.well-known/oauth-authorization-server\`): authorization code with PKCE for users, client credentials for apps installed in an organization. Request the token for this server's URL as \`resource\`.
- **Organizations** — a key or an app's token acts in its own organization. A user's token or console session that reaches several organizations names one per request in \`X-Service-Organization-Id\`; without it the answer is 400 \`organization_required\`, listing them.
- A missing or bad credential is 401 (\`WWW-Authenticate\` says which); a credential without the operation's scope is 403 \`insufficient_scope\`. Each operation names its scope.

## Rate limits and costs

Sliding one-minute windows, per organization (600), workspace (300), user or app (180), API key (180) and route (120). A refused request is 429 \`rate_limited\` with \`Retry-After\` (seconds) and \`retryAfterMs\`, and consumes nothing. Every response carries \`RateLimit-Policy\` and \`RateLimit\` for the tightest window. Successful requests cost tokens, shown in \`X-Token-Cost\`: reads 0.2, writes 0.4, \`GET /workspaces\` nothing; \`GET /usage\` reports them per day and route.

## Idempotency

Send \`Idempotency-Key\` (1 to 200 characters) on any POST, PATCH or DELETE: a retry with the same key and the same request answers the first result again, with \`Idempotent-Replayed: true\` and the first request's id in \`Original-Request-Id\`, and does nothing twice. The same key with another request is 422; while the first is still running, 409. Keys are kept 24 hours; 5xx and 429 results are not kept, so those can be retried.

## Pagination

Every list answers \`{ data, pagination: { cursor, hasMore } }\`. Pass \`limit\` (1 to 100, default 50) and, for the next page, \`cursor\` = \`pagination.cursor\`, until \`hasMore\` is false (\`cursor\` is then null). Cursors are opaque and belong to the list and filters they came from; another list's or an altered one is 400 \`invalid_cursor\`. Paging never skips a row that existed when the walk began.

## Errors

Every failure has the body \`{ "error": { "code", "message", "requestId", "details"?, "retryAfterMs"? } }\`; \`code\` is stable (each operation lists the codes it can answer), \`details\` names each invalid input as \`{ path, message }\` (\`body.fields.email\`, \`query.limit\`). Every response carries \`X-Request-Id\`, equal to \`requestId\`: quote it to support. Unknown ids, and ids of another organization, are 404.

## Webhooks and signatures

Subscribe with \`POST /webhooks\` to the event types of \`GET /webhooks/event-types\`. Deliveries are signed as Standard Webhooks: headers \`webhook-id\`, \`webhook-timestamp\` and \`webhook-signature\` (\`v1,<base64 HMAC-SHA256 of id.timestamp.body>\`) made with the subscription's \`whsec_\` secret, shown once (\`rotate-secret\` issues a new one; both sign for 24 hours). Each delivery names its sender as \`User-Agent: CRM-Webhooks/<API version>\`. Verify the signature and the timestamp (within 5 minutes), and treat \`webhook-id\` as the delivery's idempotency key: failed deliveries are retried with backoff, and \`GET /webhooks/{webhookId}/deliveries\` shows every attempt.

## MCP

The same API is an MCP server at \`<origin>/mcp\` (Streamable HTTP): every operation that takes a bearer token is a tool with the same arguments, scopes, limits and costs. Give an MCP client the URL and an API key, or let it sign in with OAuth. Sending tools answer with a preview unless called with \`sendMode: "send"\`. A tool's error names each invalid argument as the tool takes it (\`fields.email\`, \`limit\`), where the REST API names where it travelled (\`body.fields.email\`, \`query.limit\`).`;
