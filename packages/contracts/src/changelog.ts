import type { operations, removedRoutes } from "./catalogue";
import type { changeCategories } from "./operations/public";

/**
 * The change log of the public API: the one source of `GET /changelog` and of `CHANGELOG.md`, which
 * `pnpm changelog` writes from it (test/changelog.test.ts fails while the committed file differs).
 *
 * To add an entry, add one object to `changes` of the newest release below, or open a new release
 * at the top (newest first, `date` as YYYY-MM-DD, a short `title`), then run `pnpm changelog`:
 *
 *   { category: "addition", summary: "`GET /things`: what a client can now do.", routes: ["GET /things"] },
 *
 * `category` is `addition`, `behaviour_change` or `removal` (the reference's categories). `summary` is
 * Markdown, one paragraph. `routes` names every route the change concerns as `METHOD /path`, paths
 * relative to `{base_url}` as in the catalogue (a typo does not compile; internal routes start with
 * `/internal/`), or at the origin for the OAuth server, the console and the MCP endpoint; an empty
 * list means a change of the API as a whole.
 */

type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
type CatalogueRoute = {
  [Id in keyof typeof operations]: `${Uppercase<(typeof operations)[Id]["method"]>} ${(typeof operations)[Id]["path"]}`;
}[keyof typeof operations];
type RemovedRoute = `${(typeof removedRoutes)[number]["method"]} ${(typeof removedRoutes)[number]["path"]}`;
/** Served by the gateway under `{base_url}` but not operations of the catalogue. */
type DocumentRoute = "GET /openapi.json" | "GET /docs";
/** Under `{base_url}` for the platform's own services, outside the catalogue and the public document. */
type InternalRoute = `${Method} /internal/${string}`;
/** Outside `{base_url}`: the OAuth server and its metadata, the console, the MCP endpoint. */
type OriginRoute = `${Method} ${`/oauth/${string}` | `/.well-known/${string}` | `/console/${string}` | "/mcp"}`;

export type ChangelogRoute = CatalogueRoute | RemovedRoute | DocumentRoute | InternalRoute | OriginRoute;

export interface Change {
  category: (typeof changeCategories)[number];
  summary: string;
  routes: ChangelogRoute[];
}

export interface Release {
  date: `${number}-${number}-${number}`;
  title: string;
  changes: Change[];
}

export const changelog: Release[] = [
  {
    date: "2026-11-26",
    title: "Data fidelity: every list paginated, the inbox on its own clock, mail stored as sent",
    changes: [
      {
        category: "behaviour_change",
        summary:
          "Every list answers `{ data, pagination }` and takes `limit` and `cursor`: `GET /api-keys`, `GET /integrations/connections`, `GET /webhooks/event-types`, `GET /public/integrations/crm` and `GET /usage` (its `totals` cover the whole range on every page) now too.",
        routes: [
          "GET /api-keys",
          "GET /integrations/connections",
          "GET /webhooks/event-types",
          "GET /public/integrations/crm",
          "GET /usage",
        ],
      },
      {
        category: "behaviour_change",
        summary:
          "The inbox runs on the service's own clock: `lastMessageAtMs`, the conversation order, the snippet and the order of a conversation's messages follow when each message arrived or was sent here; the sender's `Date` header is kept as `sentAtMs` only. Messages gain `createdAt` (arrival) and `senderKind` (`person`, `mail_system` for bounces, `own_mailbox_from_outside` for inbound mail whose `From` claims one of the workspace's mailboxes, which stays inbound).",
        routes: ["GET /inbox/conversations", "GET /inbox/conversations/{conversationId}/messages"],
      },
      {
        category: "behaviour_change",
        summary:
          "Inbound mail: attachments are stored byte for byte in every transfer encoding (7bit and quoted-printable no longer gain a line break); bounces (null sender, `From` without an address) are stored as from the mail system instead of refused; subjects, display names and addresses are stored without CR, LF or other control characters; a reply without `to` goes only to an address a request could name, never to one of the workspace's mailboxes or the mail system. Subjects sent through the API refuse control characters.",
        routes: ["POST /inbox/conversations", "POST /inbox/conversations/{conversationId}/messages"],
      },
      {
        category: "behaviour_change",
        summary:
          "Paging `GET /inbox/conversations` while messages arrive skips nothing: the cursor carries the time of the first page and the walk keeps the order of that time; a conversation that moved is served once at its place then, conversations started meanwhile appear when a client starts again without `cursor`.",
        routes: ["GET /inbox/conversations"],
      },
      {
        category: "behaviour_change",
        summary:
          "`contains`, `not_contains` and `starts_with` take any fragment on e-mail, phone, URL and domain fields (`@example.org`, `555`), in record queries, views and the MCP tool.",
        routes: ["POST /records/query", "POST /crm/objects/{objectTypeId}/views"],
      },
      {
        category: "behaviour_change",
        summary:
          "Requests: a JSON body nested deeper than 64 levels is 400 (never 500); no body with `Content-Type: application/json` is `{}`; a query value whose percent-encoding is not UTF-8 is 400 naming it; a replay answers its own `X-Request-Id` (an error's `requestId` equal to it) with the first request's id in the new `Original-Request-Id` header; MCP error details name the tool's arguments (`fields.email`), not the REST request's `body.` or `query.`.",
        routes: [],
      },
      {
        category: "behaviour_change",
        summary:
          "The reference page opens with an introduction in sections: authentication (keys, OAuth, organizations), rate limits and costs, idempotency, pagination, errors, webhooks and their signatures, and MCP.",
        routes: ["GET /docs", "GET /openapi.json"],
      },
      {
        category: "behaviour_change",
        summary:
          "The OpenAPI document says what the server checks: attachment downloads answer the attachment's own media type (`*/*`), compose, reply and reply drafts need `text` or `html` (a reply draft takes `html` alone), record `fields` need at least one property, and `X-Service-Organization-Id` is declared on every operation a user credential calls.",
        routes: [
          "GET /inbox/messages/{messageId}/attachments/{attachmentId}",
          "POST /inbox/conversations",
          "PUT /inbox/conversations/{conversationId}/draft",
        ],
      },
    ],
  },
  {
    date: "2026-11-23",
    title: "MCP, the integrations catalogue, the change log as JSON, isolated webhook delivery",
    changes: [
      {
        category: "addition",
        summary:
          "The MCP endpoint `POST /mcp` (also `POST {base_url}/mcp`): Streamable HTTP, stateless, MCP revision 2026-07-28 and the 2025-11-25 `initialize` handshake. Every public route authenticated by a bearer token is a typed tool generated from the route catalogue (named in the OpenAPI document as `x-mcp-tool`), plus `auth_whoami` (free). The same credentials as REST (an API key, or an OAuth token issued for `<origin>/mcp`), scopes, rate limits, token costs (booked under the REST route) and idempotency; API failures are tool results with `isError` and the REST error body; no or a bad token is 401 with `WWW-Authenticate: Bearer resource_metadata=…`.",
        routes: ["POST /mcp"],
      },
      {
        category: "addition",
        summary:
          'MCP tools: `records_create` requires `idempotencyKey`; list tools return one page `{ data, pagination }`; `inbox_conversations_compose` and `inbox_messages_send` return a preview and send nothing unless `sendMode` is `send`, and save a draft with `sendMode: "draft"`; any other value is an error.',
        routes: ["POST /records", "POST /inbox/conversations", "POST /inbox/conversations/{conversationId}/messages"],
      },
      {
        category: "addition",
        summary:
          "Drafts of new conversations: `POST /inbox/drafts` saves one (a composed message, complete or not; HTML sanitized), `GET /inbox/drafts` lists your own, `GET`, `PATCH` and `DELETE /inbox/drafts/{draftId}` read, change and discard one; only its author sees a draft.",
        routes: [
          "POST /inbox/drafts",
          "GET /inbox/drafts",
          "GET /inbox/drafts/{draftId}",
          "PATCH /inbox/drafts/{draftId}",
          "DELETE /inbox/drafts/{draftId}",
        ],
      },
      {
        category: "addition",
        summary:
          "`POST /inbox/drafts/{draftId}/send` sends a saved draft as a new conversation, once: the draft is deleted in the same write that creates the conversation, and a send already under way is 409 `conflict`.",
        routes: ["POST /inbox/drafts/{draftId}/send"],
      },
      {
        category: "behaviour_change",
        summary:
          "OAuth access tokens work only on the resource they were issued for: a token for `<origin>/mcp` on the MCP endpoint, a token for `<origin>/api/v1` on the REST API.",
        routes: ["POST /mcp"],
      },
      {
        category: "addition",
        summary:
          "Regional MCP endpoints: `/mcp` and the OAuth discovery documents on a region's hostname are forwarded to the universal gateway with method, query, headers and body unchanged (OAuth clients use the gateway's `/mcp`, the resource their tokens name).",
        routes: [
          "POST /mcp",
          "GET /.well-known/oauth-protected-resource",
          "GET /.well-known/oauth-protected-resource/mcp",
          "GET /.well-known/oauth-authorization-server",
        ],
      },
      {
        category: "behaviour_change",
        summary:
          "The OpenAPI extension `x-mcp-tool` names only tools that exist: the public unsubscribe routes no longer claim one.",
        routes: ["GET /email/unsubscribe", "POST /email/unsubscribe"],
      },
      {
        category: "addition",
        summary:
          "`GET /webhooks/{webhookId}` shows `endpointState`: `status` (`healthy`, `failing` or `disabled`), `consecutiveFailures`, `lastFailureAt`, `lastFailure` and `nextAttemptAt`.",
        routes: ["GET /webhooks/{webhookId}"],
      },
      {
        category: "behaviour_change",
        summary:
          "Webhook deliveries go through a lane per subscription: at most 8 in flight, and a circuit breaker that opens after 5 failures in a row and lets one probe through at a time; an attempt held by an open breaker is recorded as retrying with `Not sent: …`. A slow or dead endpoint no longer delays other subscriptions' deliveries.",
        routes: ["GET /webhooks/{webhookId}/deliveries"],
      },
      {
        category: "behaviour_change",
        summary:
          "A delivery over the workspace's burst limit is held once, until a slot given to it, so it counts once in `rateLimited`; `Retry-After` is also honoured on 503.",
        routes: ["GET /webhooks/{webhookId}/deliveries"],
      },
      {
        category: "behaviour_change",
        summary:
          "Webhook deliveries leave within about 100 ms of the write that caused them (was about 2 s), and an outbox with more than 99 waiting events no longer stalls.",
        routes: [],
      },
      {
        category: "behaviour_change",
        summary:
          "`POST /internal/sso/store`: each domain belongs to one organization's SSO connection. A push naming a domain another organization holds is 409 `conflict` (the domain named in `details`) and stores nothing; an organization that drops a domain frees it. Refused pushes (401) count against the client's window of failed authentications, 60 a minute, as bad credentials do elsewhere; then 429.",
        routes: ["POST /internal/sso/store"],
      },
      {
        category: "behaviour_change",
        summary:
          "A subscription's lane drains a backlog several times faster (thousands of deliveries a second on the local runtime, still at most 8 in flight). Attempts are written in batches gathered for 50 ms, so one shows in `GET /webhooks/{webhookId}/deliveries` that much after the receiver answered; while a delivery is being sent, `endpointState.nextAttemptAt` is the current time.",
        routes: ["GET /webhooks/{webhookId}/deliveries", "GET /webhooks/{webhookId}"],
      },
      {
        category: "behaviour_change",
        summary:
          "Rate limits are admitted at the edge from short leases on each window's slots: the budgets, the 429 answer and the `RateLimit` headers are unchanged, and no window admits more than its budget in any 60 seconds.",
        routes: [],
      },
      {
        category: "behaviour_change",
        summary:
          "Reading a record takes one database round trip (the record, its fields, options, values and access in one batch); the response is unchanged.",
        routes: ["GET /records/{recordId}"],
      },
      {
        category: "addition",
        summary:
          "`GET /public/integrations/crm` and `GET /public/integrations/crm/{slug}`: the published integrations (the automation platform, the meeting-notes and calling providers, MCP clients) without a credential, limited per client address. The automation platform's 14 instant triggers are the event types of `GET /webhooks/event-types`, each with the JSON Schema of its webhook body; its actions are the public write operations with the JSON Schema of their input. `ETag`, `Cache-Control`, and 304 on `If-None-Match`; an unknown slug is 404.",
        routes: ["GET /public/integrations/crm", "GET /public/integrations/crm/{slug}"],
      },
      {
        category: "addition",
        summary:
          "`GET /changelog`: this change log as JSON (`{ entries: [{ date, category, summary, routes }] }`, newest first), public and cacheable like the integrations catalogue; `CHANGELOG.md` is generated from the same source.",
        routes: ["GET /changelog"],
      },
      {
        category: "addition",
        summary:
          "`POST /internal/sso/store` for the identity service: an organization's SSO connection (`organizationId`, `protocol` saml or oidc, `domains`, `metadataUrl` or `issuer`, `enforced`), signed with HMAC-SHA-256 over `timestamp.nonce.body` (`x-sso-timestamp`, `x-sso-nonce`, `x-sso-signature`); a wrong signature, a timestamp more than 5 minutes off or a nonce used before is 401 and stores nothing. Internal: not in the public OpenAPI document.",
        routes: ["POST /internal/sso/store"],
      },
      {
        category: "behaviour_change",
        summary:
          "The API reference at `/docs` is Scalar's reference page over the OpenAPI document: schemas resolved, descriptions rendered as Markdown, and a try-it client that sends requests to this origin with a pasted key. It is served from the gateway's own assets and loads nothing from elsewhere.",
        routes: ["GET /docs"],
      },
    ],
  },
  {
    date: "2026-11-23",
    title: "identity, the shared inbox, meetings",
    changes: [
      {
        category: "addition",
        summary:
          "OAuth 2.1 authorization server at the API's origin: `GET`/`POST /oauth/authorize` (authorization code with PKCE S256, a consent page), `POST /oauth/token` (authorization_code, refresh_token rotated on every use with reuse detection, client_credentials for installed apps), `POST /oauth/register` (RFC 7591 public clients), `POST /oauth/revoke` (RFC 7009), `/.well-known/oauth-authorization-server`, `/.well-known/oauth-protected-resource` (and `/mcp`), `/.well-known/jwks.json`. Access tokens are ES256 JWTs of at most one hour. Redirect URIs match exactly, except that a registered `http://127.0.0.1/...` or `http://[::1]/...` URI takes any port (RFC 8252). Registration refuses a `client_name` with control characters or invalid Unicode.",
        routes: [
          "GET /oauth/authorize",
          "POST /oauth/authorize",
          "POST /oauth/token",
          "POST /oauth/register",
          "POST /oauth/revoke",
          "GET /.well-known/oauth-authorization-server",
          "GET /.well-known/oauth-protected-resource",
          "GET /.well-known/oauth-protected-resource/mcp",
          "GET /.well-known/jwks.json",
        ],
      },
      {
        category: "addition",
        summary:
          "The console at `/console`: sign in with e-mail and password, create API keys (name, scopes, workspace limit, expiry 7/30/60/90 days or none; the key shown once), see each key's activity, revoke or replace keys, revoke authorized applications, switch organization, and a usage chart.",
        routes: [
          "GET /console/sign-in",
          "POST /console/sign-in",
          "POST /console/sign-out",
          "POST /console/organization",
          "GET /console/api-keys",
          "POST /console/api-keys",
          "POST /console/api-keys/{keyId}/revoke",
          "POST /console/api-keys/{keyId}/replace",
          "GET /console/applications",
          "POST /console/applications/{grantId}/revoke",
          "GET /console/usage",
        ],
      },
      {
        category: "addition",
        summary:
          "`GET /api-keys`, `POST /api-keys`, `GET /api-keys/{keyId}`, `DELETE /api-keys/{keyId}`, `POST /api-keys/{keyId}/replace`: the console's key operations as JSON, for a console session of the same origin only (security scheme `ConsoleSession`); an API key or OAuth token gets 403 `forbidden`. Not MCP tools.",
        routes: [
          "GET /api-keys",
          "POST /api-keys",
          "GET /api-keys/{keyId}",
          "DELETE /api-keys/{keyId}",
          "POST /api-keys/{keyId}/replace",
        ],
      },
      {
        category: "addition",
        summary:
          "Mailboxes: each workspace has shared addresses (demo: `sales@acme.example`, `support@acme.example`, `ops@globex.example`, `hello@initech.example`); `.dev/demo.json` names each workspace's `mailbox`.",
        routes: ["POST /inbox/conversations", "POST /inbox/conversations/{conversationId}/messages"],
      },
      {
        category: "addition",
        summary:
          "`GET /inbox/conversations` (`workspaceId`, `viewId`, `hasLinkedRecords`, `q`, `isClosed`, `assigneeUserId`, `limit`, `cursor`), newest first by `(lastMessageAtMs desc, id desc)`; `q` searches subjects, message texts and attendee names and addresses (every word, as a prefix).",
        routes: ["GET /inbox/conversations"],
      },
      {
        category: "addition",
        summary:
          "`GET` and `PATCH /inbox/conversations/{conversationId}` (`isClosed`, `assigneeUserIds`, `linkedRecordIds`: replaces the records linked by hand, attendee matches stay linked), `GET /records/{recordId}/conversations`, `GET /inbox/conversations/{conversationId}/messages` (oldest first). Scopes `inbox:read` and `inbox:write`; members whose inbox access is `record_read` or `record_reply` see only conversations linked to a record.",
        routes: [
          "GET /inbox/conversations/{conversationId}",
          "PATCH /inbox/conversations/{conversationId}",
          "GET /records/{recordId}/conversations",
          "GET /inbox/conversations/{conversationId}/messages",
        ],
      },
      {
        category: "addition",
        summary:
          "Events `conversation.created`, `message.received` and `message.sent` carry the Conversation and Message resources as `data`.",
        routes: ["GET /webhooks/event-types", "POST /webhooks", "PATCH /webhooks/{webhookId}"],
      },
      {
        category: "addition",
        summary:
          "Inbox views: `GET /inbox/views?workspaceId=` (the system views `inbox`, `assigned_to_me` and `closed`, then workspace views, the caller's personal views and the restricted views they are listed on), `POST /inbox/views` (`workspaceId`, `name`, `emoji`, `config { filter, sorts }`, `visibility` personal (default) | workspace | restricted, `memberUserIds`), `PATCH` and `DELETE /inbox/views/{inboxViewId}`. System views: 409 `system_resource`. `viewId` on `GET /inbox/conversations` takes any of them.",
        routes: [
          "GET /inbox/views",
          "POST /inbox/views",
          "PATCH /inbox/views/{inboxViewId}",
          "DELETE /inbox/views/{inboxViewId}",
          "GET /inbox/conversations",
        ],
      },
      {
        category: "addition",
        summary:
          "Drafts: `PUT`, `GET` and `DELETE /inbox/conversations/{conversationId}/draft`, one per user and conversation; HTML (sanitized) for e-mail conversations only.",
        routes: [
          "PUT /inbox/conversations/{conversationId}/draft",
          "GET /inbox/conversations/{conversationId}/draft",
          "DELETE /inbox/conversations/{conversationId}/draft",
        ],
      },
      {
        category: "addition",
        summary:
          "Every API route (except `/api-keys`) accepts an OAuth 2.1 access token (`Authorization: Bearer <JWT>`, ES256, issued for the resource `<origin>/api/v1`) besides an API key, and a console session from the console's own pages (`X-CSRF-Token` on unsafe methods). A token or session of a user in several organizations names one in `X-Service-Organization-Id`; without it: 400 `organization_required` listing them in `details`. A token with no scope of this API: 403 `insufficient_scope`.",
        routes: [],
      },
      {
        category: "addition",
        summary: "The OpenAPI document's `ServiceOAuth` scheme describes every scope in words.",
        routes: ["GET /openapi.json"],
      },
      {
        category: "addition",
        summary:
          "Real e-mail in the shared inbox: `POST /inbox/conversations` (compose from one of the workspace's mailboxes, 201 `{ conversation, message }`) and `POST /inbox/conversations/{conversationId}/messages` (reply, threaded with `In-Reply-To`/`References`), scope `inbox:send`, sent as MIME (text and sanitized HTML alternative) with `List-Unsubscribe` and `List-Unsubscribe-Post: List-Unsubscribe=One-Click` (RFC 8058); a recipient who unsubscribed is refused with the new error code `recipient_unsubscribed` (409). `GET /inbox/messages/{messageId}/attachments/{attachmentId}` streams an attachment.",
        routes: [
          "POST /inbox/conversations",
          "POST /inbox/conversations/{conversationId}/messages",
          "GET /inbox/messages/{messageId}/attachments/{attachmentId}",
        ],
      },
      {
        category: "addition",
        summary:
          "`GET /email/unsubscribe?token=…` (a confirmation page that changes nothing) and `POST /email/unsubscribe?token=…` (one click, urlencoded or multipart `List-Unsubscribe=One-Click`, 200 without a redirect, idempotent): public, no credential; tokens expire after 90 days.",
        routes: ["GET /email/unsubscribe", "POST /email/unsubscribe"],
      },
      {
        category: "addition",
        summary:
          "Inbound mail: the mailboxes' domains deliver to the API through Email Routing; messages are threaded, stored once per `Message-ID`, their attachments kept in the organization's region; unknown mailboxes, unparsable and oversized (> 25 MiB) messages are rejected with a reason.",
        routes: [
          "GET /inbox/conversations",
          "GET /inbox/conversations/{conversationId}/messages",
          "GET /inbox/messages/{messageId}/attachments/{attachmentId}",
        ],
      },
      {
        category: "addition",
        summary:
          "Provider connections (`integrations:read` / `integrations:write`, admins and owners): `POST`/`GET /integrations/connections`, `DELETE /integrations/connections/{connectionId}`, `POST /integrations/connections/{connectionId}/rotate-secret` (the old secret accepted 24 h).",
        routes: [
          "POST /integrations/connections",
          "GET /integrations/connections",
          "DELETE /integrations/connections/{connectionId}",
          "POST /integrations/connections/{connectionId}/rotate-secret",
        ],
      },
      {
        category: "addition",
        summary:
          "Signed inbound webhooks without bearer tokens: `POST /integrations/meeting-notes/webhooks/{connectionId}` and `POST /calling/webhooks/{provider}/{connectionId}` (Standard Webhooks, 5-minute tolerance, each `webhook-id` applied once); the provider event schema is in the OpenAPI document and `docs/meetings.md`.",
        routes: ["POST /integrations/meeting-notes/webhooks/{connectionId}", "POST /calling/webhooks/{provider}/{connectionId}"],
      },
      {
        category: "addition",
        summary:
          "`GET /meetings` (`workspaceId`, `eventState`, `startAfterMs`, `startBeforeMs`, `recordId`, `limit`, `cursor`; newest first) and `GET /meetings/{meetingId}` with participants (scope `meetings:read`). Action items become source-managed tasks; events `meeting.updated` and `meeting.transcript_ready` carry the Meeting resource.",
        routes: ["GET /meetings", "GET /meetings/{meetingId}"],
      },
    ],
  },
  {
    date: "2026-11-23",
    title: "fixes from the first outside review (API version stays 1.0.0)",
    changes: [
      {
        category: "behaviour_change",
        summary:
          "Every operation refuses query parameters it does not declare (400), not only the lists. Integer query parameters (`limit`, `dueBeforeMs`) take plain decimal digits only: `1e2`, `+5`, `0x10`, ` 5`, `5.0`, `05` and an empty value are 400.",
        routes: [],
      },
      {
        category: "behaviour_change",
        summary:
          'Strings that are not well-formed Unicode (a lone UTF-16 surrogate such as `"\\ud83d"`) are 400 wherever they come in, property names included, and so is a body whose bytes are not UTF-8. Names, titles, option values and labels, slugs, emoji and icons refuse control characters (NUL, tab, CR, LF, …); text and HTML bodies keep tabs and line breaks.',
        routes: [],
      },
      {
        category: "behaviour_change",
        summary:
          "Ids in paths, queries and bodies must look like ids (`prefix_` then lowercase letters and digits, at most 73 characters): anything else is 400 rather than 404.",
        routes: [],
      },
      {
        category: "behaviour_change",
        summary:
          "The OpenAPI document declares the response headers (`X-Request-Id`, `RateLimit`, `RateLimit-Policy`, `X-Token-Cost`, `Idempotent-Replayed`, `Retry-After`, `WWW-Authenticate`), the error codes each status can carry, and bounds on every string, integer and array; request defaults are described, not declared as `default`, so generated clients treat them as optional.",
        routes: ["GET /openapi.json"],
      },
      {
        category: "behaviour_change",
        summary:
          "`POST /crm/objects/{objectTypeId}/views` without `type`: a kanban view when the body has `kanbanFieldDefinitionId`, a table otherwise (an explicit `type` must agree). `PATCH /crm/views/{viewId}` with only `kanbanFieldDefinitionId` makes the view a kanban view on that field; `null` makes it a table.",
        routes: ["POST /crm/objects/{objectTypeId}/views", "PATCH /crm/views/{viewId}"],
      },
      {
        category: "behaviour_change",
        summary:
          "Webhook `objectTypeIds` must name object types of the subscription's workspace (400 with a detail per other id).",
        routes: ["POST /webhooks", "PATCH /webhooks/{webhookId}"],
      },
      {
        category: "behaviour_change",
        summary:
          "A replay of a webhook creation or secret rotation answers `secret: null` and a `notice`; the secret is shown once and never stored for replay.",
        routes: ["POST /webhooks", "POST /webhooks/{webhookId}/rotate-secret"],
      },
      {
        category: "behaviour_change",
        summary: "`Idempotency-Key`: no body and `{}` are the same request.",
        routes: [],
      },
      {
        category: "behaviour_change",
        summary: "`__proto__` in record `fields` is 400 like every unknown field slug.",
        routes: ["POST /records", "PATCH /records/{recordId}", "PUT /records"],
      },
      {
        category: "behaviour_change",
        summary: "Concurrent creations of the same slug or option value: 409 `conflict`, never 500.",
        routes: [
          "POST /crm/objects",
          "POST /crm/objects/{objectTypeId}/fields",
          "POST /crm/fields/{fieldDefinitionId}/options",
          "PATCH /crm/objects/{objectTypeId}",
          "PATCH /crm/fields/{fieldDefinitionId}",
          "PATCH /crm/fields/{fieldDefinitionId}/options/{fieldOptionId}",
        ],
      },
      {
        category: "behaviour_change",
        summary: "Validation `details.path` of `POST /records/query` names `body.filter…` and `body.sorts…`.",
        routes: ["POST /records/query"],
      },
      {
        category: "behaviour_change",
        summary:
          "`task.updated`, `task.deleted` and every `note.*` event carry the linked record's `objectTypeId` (as `task.created` did), so webhook `objectTypeIds` filters deliver them.",
        routes: [
          "PATCH /tasks/{taskId}",
          "DELETE /tasks/{taskId}",
          "POST /records/{recordId}/notes",
          "PATCH /notes/{noteId}",
          "DELETE /notes/{noteId}",
        ],
      },
      {
        category: "behaviour_change",
        summary: "`note.updated` lists in `changedFields` only the fields whose value changed.",
        routes: ["PATCH /notes/{noteId}"],
      },
      {
        category: "behaviour_change",
        summary:
          'Task `descriptionHtml` and note `contentHtml` are sanitized by a spec-compliant HTML parser and an allowlist: the raw-text tricks (`<xmp>`, `<noembed>`, `<noframes>`, `<plaintext>`) and entity-encoded CSS no longer get through. Links keep only absolute http, https and mailto URLs and get `rel="noopener noreferrer nofollow"`; images with an absolute http(s) `src` are kept; `style` keeps `color`, `background-color`, `text-align`, `font-weight`, `font-style` and `text-decoration` with plain values; `id`, `name` and `class` are dropped. The derived plain text follows `innerText` (a blank line between paragraphs). HTML that would parse into more than 50 000 elements (formatting tags left open are copied into every later block) or nest deeper than 512 levels is refused with 400 `invalid_request`.',
        routes: [
          "POST /records/{recordId}/tasks",
          "PATCH /tasks/{taskId}",
          "POST /records/{recordId}/notes",
          "PATCH /notes/{noteId}",
        ],
      },
      {
        category: "behaviour_change",
        summary:
          "Rate limits: the workspace window is counted per organization and workspace, and only for a workspace the credential may reach, so another organization's requests neither use up nor see a workspace's window. A request refused for its scope or `X-Service-Organization-Id` uses up no window. The failed-authentication window counts an IPv6 client by its /64.",
        routes: [],
      },
      {
        category: "behaviour_change",
        summary: "A path with a trailing slash (`/workspaces/`) is 404 `not_found`, not 405.",
        routes: [],
      },
      {
        category: "behaviour_change",
        summary:
          "Webhook URLs: the host is normalized (lowercase, IDNA, trailing dots) before every check, at save and before each delivery; `.localhost`, `.local`, `.localdomain`, `.home.arpa`, `.arpa`, `.internal`, `.intranet`, `.lan`, `.corp`, `.home`, `.private`, `.test` and `.invalid` names, and IPv6 literals outside global unicast, are refused (400 on `body.url`).",
        routes: ["POST /webhooks", "PATCH /webhooks/{webhookId}"],
      },
    ],
  },
  {
    date: "2026-11-23",
    title: "1.0.0",
    changes: [
      {
        category: "addition",
        summary:
          "`GET /workspaces`: workspaces the actor can access in its organization, with the effective `role` (null for agents and apps) and `isInheritedAccess`; cursor pagination (`limit` 1–100, default 50).",
        routes: ["GET /workspaces"],
      },
      {
        category: "addition",
        summary: "`GET /openapi.json` (OpenAPI 3.1, `ApiKeyBearer` and `ServiceOAuth`) and the `/docs` page.",
        routes: ["GET /openapi.json", "GET /docs"],
      },
      {
        category: "addition",
        summary:
          "API-key authentication (`Authorization: Bearer crm_<prefix>_<secret>`), scopes, workspace limits, expiry and revocation; `X-Service-Organization-Id`.",
        routes: [],
      },
      {
        category: "addition",
        summary: "`Idempotency-Key` on every POST, PATCH and DELETE (24 h; `Idempotent-Replayed: true`).",
        routes: [],
      },
      {
        category: "addition",
        summary:
          "Rate limits: organization 600, workspace 300, identity 180, API key 180, route 120, platform 2000 requests a minute (exact sliding windows); 429 `rate_limited` with `Retry-After` and `retryAfterMs`; `RateLimit-Policy` and `RateLimit` headers on every authenticated response. Failed authentications: 60 a minute per client IP.",
        routes: [],
      },
      {
        category: "addition",
        summary:
          "Token costs (reads 0.2, writes 0.4, `GET /workspaces` 0) in `X-Token-Cost`, charged on 2xx; `GET /usage` reports them per day and route.",
        routes: ["GET /usage"],
      },
      {
        category: "addition",
        summary:
          "CRM metadata: object types (system people, companies, deals), fields of 13 types, select options and saved record views, with reorder routes and permanent cascading deletes.",
        routes: [
          "GET /crm/objects",
          "POST /crm/objects",
          "PATCH /crm/objects/{objectTypeId}",
          "DELETE /crm/objects/{objectTypeId}",
          "GET /crm/objects/{objectTypeId}/fields",
          "POST /crm/objects/{objectTypeId}/fields",
          "POST /crm/objects/{objectTypeId}/fields/reorder",
          "PATCH /crm/fields/{fieldDefinitionId}",
          "DELETE /crm/fields/{fieldDefinitionId}",
          "POST /crm/fields/{fieldDefinitionId}/options",
          "PATCH /crm/fields/{fieldDefinitionId}/options/{fieldOptionId}",
          "GET /crm/objects/{objectTypeId}/views",
          "POST /crm/objects/{objectTypeId}/views",
          "POST /crm/objects/{objectTypeId}/views/reorder",
          "GET /crm/views/{viewId}",
          "PATCH /crm/views/{viewId}",
          "DELETE /crm/views/{viewId}",
        ],
      },
      {
        category: "addition",
        summary:
          "Records: create (validation, defaults, identity resolution with 409 `identity_conflict`), read, update, soft delete, list by saved view, query with the view filter language, assert by a unique field (`PUT /records?matchingField=`).",
        routes: [
          "POST /records",
          "GET /records/{recordId}",
          "PATCH /records/{recordId}",
          "DELETE /records/{recordId}",
          "GET /records",
          "POST /records/query",
          "PUT /records",
        ],
      },
      {
        category: "addition",
        summary: "Tasks and notes on records, with sanitized HTML; source-managed tasks.",
        routes: [
          "POST /records/{recordId}/tasks",
          "GET /records/{recordId}/tasks",
          "GET /tasks",
          "GET /tasks/{taskId}",
          "PATCH /tasks/{taskId}",
          "DELETE /tasks/{taskId}",
          "POST /records/{recordId}/notes",
          "GET /records/{recordId}/notes",
          "GET /notes/{noteId}",
          "PATCH /notes/{noteId}",
          "DELETE /notes/{noteId}",
        ],
      },
      {
        category: "addition",
        summary:
          "Webhooks: subscriptions, Standard Webhooks signatures, secret rotation, delivery attempts and statistics, 14 event types (`GET /webhooks/event-types`).",
        routes: [
          "GET /webhooks/event-types",
          "POST /webhooks",
          "GET /webhooks",
          "GET /webhooks/{webhookId}",
          "PATCH /webhooks/{webhookId}",
          "DELETE /webhooks/{webhookId}",
          "POST /webhooks/{webhookId}/rotate-secret",
          "GET /webhooks/{webhookId}/deliveries",
        ],
      },
      {
        category: "behaviour_change",
        summary:
          "Every error has the body `{ error: { code, message, requestId, details?, retryAfterMs? } }` and every response carries `X-Request-Id`.",
        routes: [],
      },
      {
        category: "removal",
        summary: "`GET /record-email-attachment-download` answers 410 `route_removed`.",
        routes: ["GET /record-email-attachment-download"],
      },
    ],
  },
];
