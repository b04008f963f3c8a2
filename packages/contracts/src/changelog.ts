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
    date: "2026-12-02",
    title:
      "Defects found from outside: search paging, anonymous traffic by class, replays at the burst limit, what record-scoped members see, the members scope, the document against the server",
    changes: [
      {
        category: "behaviour_change",
        summary:
          "`POST /webhooks/{webhookId}/replay` sends exactly the deliveries made for the subscription in the range, never events that only its present filters match, and after a `url` change only events written after that change. `PATCH /webhooks/{webhookId}` with a new `url` applies from its answer on: no delivery attempted after it goes to the old URL.",
        routes: ["POST /webhooks/{webhookId}/replay", "PATCH /webhooks/{webhookId}"],
      },
      {
        category: "behaviour_change",
        summary:
          "A replay spends the workspace's burst limit (350 deliveries a minute) at a lower priority than live deliveries, which always go first: it no longer sends thousands at once. One replay runs at a time per subscription: while another's deliveries still wait, `POST /webhooks/{webhookId}/replay` is 409 with the new error code `replay_in_progress` (`details.waiting`). A replay costs 0.4 per delivery queued (`X-Token-Cost`), not 0.4 a request.",
        routes: ["POST /webhooks/{webhookId}/replay"],
      },
      {
        category: "behaviour_change",
        summary:
          "`GET /inbox/conversations?q=…` pages past its first page: a continued search answered 500 where it now answers the next page.",
        routes: ["GET /inbox/conversations"],
      },
      {
        category: "behaviour_change",
        summary:
          "A workspace holds at most 50 webhook subscriptions: the 51st `POST /webhooks` is 409 `conflict`, also when several are created at once. The `webhooks:write` scope says what it gives: the full content of the events its subscriptions deliver, replays included.",
        routes: ["POST /webhooks"],
      },
      {
        category: "behaviour_change",
        summary:
          "`GET /workspaces/{workspaceId}/members` (MCP `workspaces_members_list`) needs the new scope `members:read` (403 `insufficient_scope` without it): a people directory is not for a credential granted only, say, `usage:read`. API keys, OAuth grants and app installations made before the scope existed that hold any other `:read` scope hold `members:read` too; the MCP endpoint's default scopes (the read scopes) include it.",
        routes: ["GET /workspaces/{workspaceId}/members", "POST /mcp"],
      },
      {
        category: "behaviour_change",
        summary:
          "A method a path does not offer answers 405 with that path's own `Allow`, also where another route's parameter would match its literal segment: `GET /records/batch` and `GET /records/query` are 405 with `Allow: POST`, no longer a 400 reading `batch` as a record id.",
        routes: ["POST /records/batch", "POST /records/query"],
      },
      {
        category: "behaviour_change",
        summary:
          "The document declares `CreateComment`'s `anyOf` (`text` or `html`), and each `anyOf` branch of compose, reply, draft and comment declares the property it requires, so generated clients refuse `{}` and Ajv's strictRequired accepts the schemas.",
        routes: ["POST /inbox/conversations/{conversationId}/comments", "POST /inbox/conversations"],
      },
      {
        category: "behaviour_change",
        summary:
          "`GET /events`, `GET /events/{eventId}` (MCP `events_list`, `events_get`): for a member whose inbox access is `record_read` or `record_reply`, `task.created` and `task.updated` events carry `linkedResources` as the task routes show them, without links to conversations linked to no record (and so without their subjects); `afterEventId` naming an event such a member may not see answers the 400 `invalid_request` of an unknown id, where it answered the page after it.",
        routes: ["GET /events", "GET /events/{eventId}", "POST /mcp"],
      },
      {
        category: "behaviour_change",
        summary:
          "`GET /events` pages past its first page when the query keeps `sinceMs` or `afterEventId`, as a client repeats its query with `cursor` on every list: the continued page answered 400 `invalid_request` where it now answers the next page (the cursor says where it begins).",
        routes: ["GET /events"],
      },
      {
        category: "behaviour_change",
        summary:
          "The inbound provider routes refuse a body not sent as `application/json` with 415 `unsupported_media_type`, and a path segment the document's pattern refuses (a `{provider}` outside `^[a-z0-9-]{1,32}$`: too long, upper case, a NUL; a `{connectionId}` that is not an id) with 400 `invalid_request` naming `path.provider` or `path.connectionId`, both before the connection is looked up. Both were accepted before (a malformed connection id was 404).",
        routes: ["POST /integrations/meeting-notes/webhooks/{connectionId}", "POST /calling/webhooks/{provider}/{connectionId}"],
      },
      {
        category: "behaviour_change",
        summary:
          'A required text field refuses text that is empty after trimming (`""`, `"   "`): 400 `invalid_request` naming the field (`body.fields.<slug>`, "Required; blank text is no value"), on `POST /records`, `PATCH /records/{recordId}`, `PUT /records`, each item of `POST /records/batch` alone, and the MCP tools `records_create`, `records_update`, `records_assert` and `records_batch`.',
        routes: ["POST /records", "PATCH /records/{recordId}", "PUT /records", "POST /records/batch"],
      },
      {
        category: "behaviour_change",
        summary:
          "A request with a dead credential (malformed, unknown, expired or revoked) is 401 `invalid_token` on every path under `{base_url}`, also one no route serves or a method the path does not offer, where it was 404 or 405: the credential is checked before the route. Without an `Authorization` header, or with a valid credential, such a request is still 404 or 405.",
        routes: ["GET /workspaces"],
      },
      {
        category: "behaviour_change",
        summary:
          "Junk without a credential no longer refuses genuine callers without a bearer token: the one window of all anonymous traffic (`anonymous`) is gone. An inbound meeting-notes or calling delivery meets only its sending address's window (600 a minute) before its connection is looked up and its signature verified, then its connection's; one its region refuses (401) counts as a failed authentication. A valid unsubscribe token counts only in its recipient's window (`recipient`, 60 a minute). Public reads (`public`), MCP requests without `Authorization` (the 401 challenge that starts OAuth discovery: `mcp_discovery`, and a per-address window of their own, no longer the address's failed authentications) and failed authentications (`failed_authentication`) each have a global window of 2 000 a minute, named in a 429's `details.scope`.",
        routes: [
          "POST /integrations/meeting-notes/webhooks/{connectionId}",
          "POST /calling/webhooks/{provider}/{connectionId}",
          "GET /email/unsubscribe",
          "POST /email/unsubscribe",
          "GET /changelog",
          "POST /mcp",
        ],
      },
      {
        category: "behaviour_change",
        summary:
          'The REST API\'s `WWW-Authenticate` challenges name its protected-resource metadata (RFC 9728 section 5.1), as the MCP endpoint\'s do: `Bearer realm="api", resource_metadata="<origin>/.well-known/oauth-protected-resource/api/v1"`, then `error="…"` as before.',
        routes: ["GET /.well-known/oauth-protected-resource/api/v1", "GET /workspaces"],
      },
      {
        category: "behaviour_change",
        summary:
          "The filter operator `is_empty` also finds records whose text is empty after trimming, and `is_not_empty` no longer does, in `POST /records/query` and in saved views' filters (`GET /records?viewId=…`).",
        routes: ["POST /records/query", "GET /records"],
      },
      {
        category: "behaviour_change",
        summary:
          "The document types the query parameters `isClosed` and `hasLinkedRecords` as `boolean` (they were string enums of `true` and `false`), so generated clients and MCP tools take a boolean; on the wire they are still `true` or `false`, anything else 400.",
        routes: ["GET /inbox/conversations"],
      },
      {
        category: "addition",
        summary:
          "Webhook deliveries carry `User-Agent: CRM-Webhooks/<API version>` (`CRM-Webhooks/1.0.0`), so receivers can recognize them in logs and firewall rules.",
        routes: ["POST /webhooks"],
      },
      {
        category: "behaviour_change",
        summary:
          "`GET /records/search` (MCP `records_search`) ranks by how many of the words of `q` a record's `name` holds, then by id, no longer by bm25: bm25 weighs words by how often every workspace of the shard holds them, so writes anywhere moved hits between two pages of a walk, which then served a hit twice or never.",
        routes: ["GET /records/search"],
      },
    ],
  },
  {
    date: "2026-11-26",
    title:
      "Members directory, events feed, webhook operations, bulk records, record search, comments and tags, writes that never lose an update and conditional requests, data fidelity, the console as a product, background work that recovers, security and protocol fixes",
    changes: [
      {
        category: "addition",
        summary:
          "`GET /workspaces/{workspaceId}/members`: the workspace's members, the organization's admins and owners (`isInheritedAccess: true`) and its agents, each with `type`, `name`, `email` (users), `role`, `isInheritedAccess` and `inboxAccess`; no scope needed, like `GET /workspaces`. MCP tool `workspaces_members_list`.",
        routes: ["GET /workspaces/{workspaceId}/members"],
      },
      {
        category: "behaviour_change",
        summary:
          "People inside resources are shown as the members directory shows them: conversation `assignees` are `[{ id, name, email }]` (were `[{ id }]`), and tasks keep `assigneeUserIds` and add `assignees: [{ id, name, email }]`. Record and inbox views add `creator: { id, name, email }` (null for system views and those an agent or app created). Names are read when the resource is read, so a changed name shows everywhere at once. Events keep naming people by id.",
        routes: [
          "GET /inbox/conversations",
          "GET /inbox/conversations/{conversationId}",
          "PATCH /inbox/conversations/{conversationId}",
          "GET /tasks",
          "GET /tasks/{taskId}",
          "POST /records/{recordId}/tasks",
          "GET /records/{recordId}/tasks",
          "PATCH /tasks/{taskId}",
          "GET /crm/objects/{objectTypeId}/views",
          "POST /crm/objects/{objectTypeId}/views",
          "GET /crm/views/{viewId}",
          "PATCH /crm/views/{viewId}",
          "GET /inbox/views",
          "POST /inbox/views",
          "PATCH /inbox/views/{inboxViewId}",
        ],
      },
      {
        category: "addition",
        summary:
          "`GET /events` (`workspaceId`, `types` comma-separated, `objectTypeId`, `sinceMs` or `afterEventId`, `limit`, `cursor`) and `GET /events/{eventId}`: the events of the last 30 days, oldest first in the order they were written, exactly as webhooks deliver them; paging while events are written misses none and repeats none. New scope `events:read`. Members with record-scoped inbox access do not see the events of conversations they may not see. MCP tools `events_list` and `events_get`.",
        routes: ["GET /events", "GET /events/{eventId}"],
      },
      {
        category: "addition",
        summary:
          "`POST /webhooks/{webhookId}/test`: a signed `webhook.test` event to that subscription only, through its delivery lane, 202 `{ delivery }`; it shows in the subscription's deliveries. An inactive subscription is refused with the new error code `webhook_disabled` (409) and the reason. MCP tool `webhooks_test`.",
        routes: ["POST /webhooks/{webhookId}/test"],
      },
      {
        category: "addition",
        summary:
          "`POST /webhooks/{webhookId}/deliveries/{deliveryId}/redeliver`: one more attempt of a delivery that ended, with the same `webhook-id`, 202 `{ delivery }`; a delivery still waiting for a retry is 409 with the new error code `delivery_pending`. MCP tool `webhooks_redeliver`.",
        routes: ["POST /webhooks/{webhookId}/deliveries/{deliveryId}/redeliver"],
      },
      {
        category: "addition",
        summary:
          "`POST /webhooks/{webhookId}/replay { sinceMs, untilMs? }` (at most 30 days back): every event of the range the subscription's filters match, delivered again with its original `webhook-id` at the lane's own pace, without slowing other subscriptions; 202 `{ queued }`. MCP tool `webhooks_replay`.",
        routes: ["POST /webhooks/{webhookId}/replay"],
      },
      {
        category: "addition",
        summary:
          "`POST /records/batch`: create, update or upsert (by a unique `matchingField`) 1 to 100 records of one object type. Each item is validated and applied on its own and answered in `results` (201, 200, or the error it would get alone, with its `index`); the valid ones are written in one transaction with one `record.created` or `record.updated` event each; two items holding one unique value are a conflict. One `Idempotency-Key` covers the batch; it costs 0.4 per record written (`X-Token-Cost` the sum) and counts as one request in the rate limits. MCP tool `records_batch` (requires `idempotencyKey`).",
        routes: ["POST /records/batch"],
      },
      {
        category: "addition",
        summary:
          "`GET /records/search?workspaceId=&q=&objectTypeIds=`: ranked full-text search over a workspace's records (text, e-mail, phone, URL and domain values and select labels), every word as a prefix (`ann` finds Anna, `acme.ex` the people of acme.example), a name match first; `{ data: [{ record, objectTypeId, matchedFields }], pagination }`. The index changes in the same transaction as every write of a record, field or option. MCP tool `records_search`.",
        routes: ["GET /records/search"],
      },
      {
        category: "addition",
        summary:
          "Comments on conversations: `GET`/`POST /inbox/conversations/{conversationId}/comments` (`text` or sanitized `html`, `mentionUserIds` of workspace members), `PATCH /inbox/comments/{commentId}` (its author) and `DELETE` (its author or an admin). Internal: never mailed, visible to whoever may see the conversation, and found by `q` on the conversation list. MCP tools `inbox_comments_*`.",
        routes: [
          "GET /inbox/conversations/{conversationId}/comments",
          "POST /inbox/conversations/{conversationId}/comments",
          "PATCH /inbox/comments/{commentId}",
          "DELETE /inbox/comments/{commentId}",
        ],
      },
      {
        category: "addition",
        summary:
          "Tags: `GET`/`POST /inbox/tags`, `PATCH`/`DELETE /inbox/tags/{tagId}` (names unique in the workspace whatever their case, colors `#rrggbb`). Conversations carry `tags: [{ id, name, color }]`, `PATCH /inbox/conversations/{conversationId}` takes `tagIds`, and the conversation list (`tagIds=`) and inbox views (`config.filter.tagIds`) select conversations with any of the tags. Deleting a tag removes it from conversations and views at once. MCP tools `inbox_tags_*`.",
        routes: [
          "GET /inbox/tags",
          "POST /inbox/tags",
          "PATCH /inbox/tags/{tagId}",
          "DELETE /inbox/tags/{tagId}",
          "PATCH /inbox/conversations/{conversationId}",
          "GET /inbox/conversations",
        ],
      },
      {
        category: "behaviour_change",
        summary:
          "`q` on `GET /inbox/conversations` also searches the conversations' comments. The OpenAPI document names the unit of a cost that varies with the request as `x-token-cost-per` beside `x-token-cost`.",
        routes: ["GET /inbox/conversations", "GET /openapi.json"],
      },
      {
        category: "behaviour_change",
        summary:
          "Console forms answer with a redirect (post/redirect/get): a new or replacement key is shown once on the page the browser is sent to, from a single-use reference of a few minutes, and a reload says the key can no longer be shown instead of making a second key or answering 404. A copy button copies it (the one script of the console, under a CSP nonce); without script the key stays selectable text.",
        routes: ["POST /console/api-keys", "POST /console/api-keys/{keyId}/replace", "GET /console/api-keys"],
      },
      {
        category: "behaviour_change",
        summary:
          "Revoking or replacing a key and revoking an application each ask first on a page that names what will stop working, then the list says what happened. An application's grants are revoked together, from one card per application (access, organization, REST API or MCP server, when allowed, last token issued).",
        routes: [
          "GET /console/api-keys/{keyId}/revoke",
          "POST /console/api-keys/{keyId}/revoke",
          "GET /console/api-keys/{keyId}/replace",
          "GET /console/applications/{clientId}/revoke",
          "POST /console/applications/{clientId}/revoke",
        ],
      },
      {
        category: "addition",
        summary:
          "Console: scopes grouped by area in words (read, write, send) with Everything and Read everything presets; dates on one line with the full UTC time on hover and activity in relative times; lists say how many rows they show and link to the rest; usage totals with filters by key, route and the last 7, 30 or 90 days (`token_usage_by_key`); the sign-in page names the application and what it asks for when it comes from an authorization request; a favicon; pages laid out from 360 px wide and usable by keyboard alone.",
        routes: ["GET /console/usage", "GET /console/sign-in", "GET /console/applications", "GET /console/favicon.svg"],
      },
      {
        category: "behaviour_change",
        summary:
          "Events stay small: `message.received` and `message.sent` carry the message's ids, addresses, subject, a `snippet` of its text and `attachmentCount`, no longer its `text`, `html`, `references` or attachments (read the message through the API); note and task events carry their title and text cut to 8 000 characters with `truncated`; no event exceeds 64 KB (one that would has its data cut and `truncated: true`). The integrations catalogue's payload schemas follow.",
        routes: ["GET /public/integrations/crm", "GET /public/integrations/crm/{slug}"],
      },
      {
        category: "behaviour_change",
        summary:
          "An event too large to deliver no longer holds back the events after it: it is shown in `GET /webhooks/{webhookId}/deliveries` as a failed delivery with the reason, and counted in `failed`. A subscription's delivery now resumes after a restart of the platform during its circuit breaker's probe (it used to stop for good).",
        routes: ["GET /webhooks/{webhookId}/deliveries", "GET /webhooks/{webhookId}"],
      },
      {
        category: "behaviour_change",
        summary:
          "A webhook delivery whose receiver already answered is no longer sent again when the platform restarts: a subscription's lane stores each outcome as it arrives, so only the requests still out at the restart go again (under the same `webhook-id`).",
        routes: ["GET /webhooks/{webhookId}/deliveries"],
      },
      {
        category: "behaviour_change",
        summary:
          "A replay or redelivery of a delivery whose send is still out goes once more when that send ends (same `webhook-id`, the next attempt number); it was dropped as a repeat, so a replay right after a burst of deliveries could answer `queued: N` and send fewer.",
        routes: ["POST /webhooks/{webhookId}/replay", "POST /webhooks/{webhookId}/deliveries/{deliveryId}/redeliver"],
      },
      {
        category: "behaviour_change",
        summary:
          "`GET /usage` and API keys' activity no longer miss requests after a failed write: the gateway retries with back-off until the uses are booked, once.",
        routes: ["GET /usage"],
      },
      {
        category: "behaviour_change",
        summary:
          "Tasks and record-scoped inbox access (`record_read`, `record_reply`): linking a conversation with `conversationId` needs access to it; one the caller may not see, or of another workspace, is 404 `not_found` like an unknown id (another workspace's was 400). Task reads, lists and updates show a conversation link (and its subject as `label`) only to readers who may see that conversation; the link stays stored for the others.",
        routes: [
          "POST /records/{recordId}/tasks",
          "GET /records/{recordId}/tasks",
          "GET /tasks",
          "GET /tasks/{taskId}",
          "PATCH /tasks/{taskId}",
        ],
      },
      {
        category: "behaviour_change",
        summary:
          "`GET /oauth/authorize`: without a console session the browser goes to sign-in whatever the request holds, never to the client. A dynamically registered client's request errors are shown on the server's page instead of being redirected to its URI (RFC 9700 section 4.11.2: anyone can register any https URI); it hears of an error only after its consent page (a denial, `access_denied`). Operator-registered clients still get errors at their redirect URI with `state` and `iss`.",
        routes: ["GET /oauth/authorize"],
      },
      {
        category: "behaviour_change",
        summary:
          "`POST /oauth/token`: a wrong `code_verifier` or `redirect_uri` uses the authorization code up (RFC 9700); client credentials with an empty `scope` are `invalid_scope`, as at the authorization endpoint (without `scope` the app gets the scopes its installation grants).",
        routes: ["POST /oauth/token"],
      },
      {
        category: "addition",
        summary:
          "`POST /oauth/register` registers confidential clients: `token_endpoint_auth_method` `client_secret_basic` or `client_secret_post` answers 201 with `client_secret` (shown once, `client_secret_expires_at: 0`) for the authorization code and refresh token grants; `client_credentials` is `invalid_client_metadata` with the reason (it needs an app installed in an organization). `none` or an omitted method registers a public client, as before.",
        routes: ["POST /oauth/register"],
      },
      {
        category: "behaviour_change",
        summary:
          "`GET /.well-known/jwks.json` is never empty: the first signing key is published before it signs anything, and a rotated key is published 60 s (the document's cache lifetime) before it signs, so a verifier holding a cached JWKS always knows the `kid` of a new token.",
        routes: ["GET /.well-known/jwks.json"],
      },
      {
        category: "behaviour_change",
        summary:
          "Names and titles (object types, fields, views, options, tasks, notes, inbox views, API key names, a registered client's `client_name`) refuse every control character (C1 included) and every format character (Unicode Cf: bidirectional overrides and isolates, zero-width spaces, the BOM) with 400; the zero-width joiner and non-joiner stay allowed.",
        routes: [],
      },
      {
        category: "behaviour_change",
        summary:
          "Stored HTML (task descriptions, notes, e-mail) escapes `<` and `>` inside attribute values, so it stays inert wherever it lands, a `<textarea>` included.",
        routes: [],
      },
      {
        category: "behaviour_change",
        summary:
          "`POST /internal/sso/store` refuses public suffixes (`co.uk`, `github.io`, …) and free-mail domains (`gmail.com`, …) in `domains` with 400 and the reason: no one organization owns them.",
        routes: ["POST /internal/sso/store"],
      },
      {
        category: "behaviour_change",
        summary:
          "The console and the unsubscribe pages send `X-Frame-Options: DENY` beside `frame-ancestors 'none'`; the unsubscribe pages also a content security policy and no Referer.",
        routes: ["GET /email/unsubscribe", "POST /email/unsubscribe", "GET /console/sign-in"],
      },
      {
        category: "behaviour_change",
        summary:
          "Requests without a valid credential (public routes, inbound webhooks before their signature is checked, failed authentications) no longer count in the platform window: they meet the client address's window and one window for all anonymous traffic (`anonymous`, 2 000 a minute), so no volume of them can refuse a signed-in tenant. A provider connection's 600-a-minute window counts only deliveries whose signature verified.",
        routes: [
          "GET /changelog",
          "POST /integrations/meeting-notes/webhooks/{connectionId}",
          "POST /calling/webhooks/{provider}/{connectionId}",
        ],
      },
      {
        category: "behaviour_change",
        summary:
          "Console sign-in takes its slot in the per-address (20) and per-account (5) windows before the password is checked and gives it back when the password was right, so parallel attempts cannot pass a full window; `/oauth/revoke` is limited per client address like `/oauth/token` (60 a minute, the slot taken before the client secret is checked).",
        routes: ["POST /console/sign-in", "POST /oauth/token", "POST /oauth/revoke"],
      },
      {
        category: "behaviour_change",
        summary:
          'MCP: `/api/v1/mcp` is an OAuth resource of its own (`/.well-known/oauth-protected-resource/api/v1/mcp`, `resource` `<origin>/api/v1/mcp`; tokens for either MCP resource work on both paths). The 401 challenge names the read scopes as `scope`; a tool call whose OAuth token lacks the tool\'s scope is HTTP 403 with `WWW-Authenticate: Bearer error="insufficient_scope", scope="…"` so clients can step up (an API key still gets the tool error). `initialize`, `tools/list`, `ping` and utility tools count in the caller\'s identity and key windows at no token cost; MCP answers carry `RateLimit-Policy` / `RateLimit`; `tools.listChanged` is no longer declared; the `Origin` check compares ports.',
        routes: ["POST /mcp", "GET /.well-known/oauth-protected-resource/api/v1/mcp"],
      },
      {
        category: "behaviour_change",
        summary:
          'The MCP tool `inbox_compose_drafts_send` follows the `sendMode` rule: without `sendMode: "send"` it answers a preview of the saved draft and sends nothing; `sendMode: "draft"` leaves the draft as it is.',
        routes: ["POST /inbox/drafts/{draftId}/send"],
      },
      {
        category: "behaviour_change",
        summary:
          "`GET /usage` needs a credential without a workspace limit (the ledger covers the whole organization): a key limited to some workspaces gets 403 `workspace_forbidden`. The identity rate-limit window is kept per organization, so an app installed in several organizations has a budget in each.",
        routes: ["GET /usage"],
      },
      {
        category: "behaviour_change",
        summary:
          "A PATCH writes only the properties it names, and only while the resource is as it read it: concurrent changes of different properties all stay. When a concurrent request changed a property this one also sets, the other whole value stands and this request is 409 `conflict` (`details.fields` names them): read the resource again and retry. State the server set on its own (a subscription disabled after a 410) is never undone by a PATCH that does not name it.",
        routes: [
          "PATCH /tasks/{taskId}",
          "PATCH /notes/{noteId}",
          "PATCH /records/{recordId}",
          "PATCH /crm/objects/{objectTypeId}",
          "PATCH /crm/fields/{fieldDefinitionId}",
          "PATCH /crm/fields/{fieldDefinitionId}/options/{fieldOptionId}",
          "PATCH /crm/views/{viewId}",
          "PATCH /inbox/views/{inboxViewId}",
          "PATCH /inbox/conversations/{conversationId}",
          "PATCH /inbox/drafts/{draftId}",
          "PATCH /webhooks/{webhookId}",
        ],
      },
      {
        category: "addition",
        summary:
          "Conditional requests: every single-resource GET answers a strong `ETag` and 304 without a body for an `If-None-Match` naming it; PATCH, PUT and DELETE of those resources take `If-Match` and answer 412 `precondition_failed`, nothing written, when the resource changed since; PATCH and PUT answer the `ETag` of the resource after the change. Declared per operation in the OpenAPI document. The MCP update and delete tools of those resources take an optional `ifMatch`, and tool results carry the resource's ETag in `_meta.etag`.",
        routes: [
          "GET /tasks/{taskId}",
          "PATCH /tasks/{taskId}",
          "DELETE /tasks/{taskId}",
          "GET /notes/{noteId}",
          "PATCH /notes/{noteId}",
          "DELETE /notes/{noteId}",
          "GET /records/{recordId}",
          "PATCH /records/{recordId}",
          "DELETE /records/{recordId}",
          "GET /crm/views/{viewId}",
          "PATCH /crm/views/{viewId}",
          "DELETE /crm/views/{viewId}",
          "GET /inbox/conversations/{conversationId}",
          "PATCH /inbox/conversations/{conversationId}",
          "GET /inbox/conversations/{conversationId}/draft",
          "PUT /inbox/conversations/{conversationId}/draft",
          "DELETE /inbox/conversations/{conversationId}/draft",
          "GET /inbox/drafts/{draftId}",
          "PATCH /inbox/drafts/{draftId}",
          "DELETE /inbox/drafts/{draftId}",
          "GET /webhooks/{webhookId}",
          "PATCH /webhooks/{webhookId}",
          "DELETE /webhooks/{webhookId}",
          "GET /meetings/{meetingId}",
          "POST /mcp",
        ],
      },
      {
        category: "behaviour_change",
        summary:
          "A DELETE with `If-Match` of a task, note, record view, record, webhook subscription or draft removes the resource only at the version it names, in the same statement or batch: a change that lands between the check and the delete makes the DELETE 412 `precondition_failed` with nothing removed (before, both could answer 200 and the change was lost). `PUT /inbox/conversations/{conversationId}/draft` with `If-Match` replaces only the version named, and answers 412 when the draft was discarded since instead of creating it again.",
        routes: [
          "DELETE /tasks/{taskId}",
          "DELETE /notes/{noteId}",
          "DELETE /crm/views/{viewId}",
          "DELETE /records/{recordId}",
          "DELETE /webhooks/{webhookId}",
          "DELETE /inbox/drafts/{draftId}",
          "DELETE /inbox/conversations/{conversationId}/draft",
          "PUT /inbox/conversations/{conversationId}/draft",
        ],
      },
      {
        category: "addition",
        summary:
          "Conditional requests on the resources without a single-resource GET: object types, fields, select options, inbox views, comments and tags. Their creation (201) and every PATCH answer the resource's strong `ETag`; PATCH and DELETE take `If-Match` and answer 412 `precondition_failed`, nothing written, when it is stale (a PATCH `{}` answers the current `ETag`). Declared per operation in the OpenAPI document; their MCP update and delete tools take `ifMatch`. Comment and tag PATCHes now write only what they name, conditionally: concurrent edits of different properties all stay, of one property one whole value wins (409 `conflict` for the other).",
        routes: [
          "POST /crm/objects",
          "PATCH /crm/objects/{objectTypeId}",
          "DELETE /crm/objects/{objectTypeId}",
          "POST /crm/objects/{objectTypeId}/fields",
          "PATCH /crm/fields/{fieldDefinitionId}",
          "DELETE /crm/fields/{fieldDefinitionId}",
          "POST /crm/fields/{fieldDefinitionId}/options",
          "PATCH /crm/fields/{fieldDefinitionId}/options/{fieldOptionId}",
          "POST /inbox/views",
          "PATCH /inbox/views/{inboxViewId}",
          "DELETE /inbox/views/{inboxViewId}",
          "POST /inbox/conversations/{conversationId}/comments",
          "PATCH /inbox/comments/{commentId}",
          "DELETE /inbox/comments/{commentId}",
          "POST /inbox/tags",
          "PATCH /inbox/tags/{tagId}",
          "DELETE /inbox/tags/{tagId}",
          "POST /mcp",
        ],
      },
      {
        category: "behaviour_change",
        summary:
          "`mentionUserIds` on comments accepts exactly the people who can see the conversation: the organization's owners and admins without a listed membership too (they were refused), a record-scoped member only on a conversation linked to a record. Anyone else is 400 naming the id. A comment PATCH may change the mentions alone; content not given stays.",
        routes: ["POST /inbox/conversations/{conversationId}/comments", "PATCH /inbox/comments/{commentId}"],
      },
      {
        category: "behaviour_change",
        summary:
          "A send to several recipients that fails part-way resumes: retried with the same `Idempotency-Key` (or a draft sent again), it sends only to the recipients not yet reached, with the same Message-ID, and stores the conversation once. A draft whose send failed can be sent again at once.",
        routes: [
          "POST /inbox/conversations",
          "POST /inbox/conversations/{conversationId}/messages",
          "POST /inbox/drafts/{draftId}/send",
        ],
      },
      {
        category: "behaviour_change",
        summary:
          "After `rotate-secret` answers, the very next delivery is signed with the new secret (beside the old one for 24 hours); two rotations at once keep each other's secrets in order.",
        routes: ["POST /webhooks/{webhookId}/rotate-secret", "POST /integrations/connections/{connectionId}/rotate-secret"],
      },
      {
        category: "behaviour_change",
        summary:
          "Calling provider events older than the stored call state change nothing of it: an earlier `call.started` keeps the later start and title, an earlier `call.ended` the later end and duration.",
        routes: ["POST /calling/webhooks/{provider}/{connectionId}"],
      },
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
          "Paging `GET /records/{recordId}/conversations` while messages arrive skips nothing either, in the same way: the cursor carries the time of the first page, a conversation that moved is served once at its place then.",
        routes: ["GET /records/{recordId}/conversations"],
      },
      {
        category: "behaviour_change",
        summary:
          "Invalid inputs are named by each surface its own way from one source: the REST API by where the value travelled (`body.fields.email`, `query.limit`, `path.fieldDefinitionId`), an MCP tool by the argument itself (`fields.email`), now also in the item errors of `records_batch`. `POST /records/batch` names a matchingField that is not a unique field `body.matchingField` (was `query.matchingField`: the batch takes it in its body).",
        routes: ["POST /records/batch", "POST /mcp"],
      },
      {
        category: "addition",
        summary:
          "The OpenAPI document (and the docs page) shows a realistic example for every property of its schemas: ids in the API's format, names, addresses, subjects and times a client would see, each error status with its first code's message; no `\"string\"` placeholders, and every example is a value its own schema accepts.",
        routes: ["GET /openapi.json", "GET /docs"],
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
      {
        category: "behaviour_change",
        summary:
          "The OpenAPI document's `Person` and `CrmFilter` components are no longer nullable themselves: a generated client typed every assignee as `Person | null` and every filter as nullable. Null is now allowed only where it is (a view's `creator`, a view's `filter`), as `anyOf: [$ref, null]`. A GET sent with `Content-Type: application/json` and no body answered 500; it is now served as any GET.",
        routes: ["GET /openapi.json"],
      },
      {
        category: "behaviour_change",
        summary:
          "An API key's requests are all its owner's, so while the key budget is no smaller than the identity budget (180 each) the key window is enforced through the identity window: a key still never passes 180 requests a minute, but a 429 or the `RateLimit` headers name `identity` where they could name `api_key` before, and the key's counter is no longer asked.",
        routes: [],
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
      {
        category: "behaviour_change",
        summary:
          "A record filter's `in` or `not_in` list of up to 100 values now works beside other conditions and sorts; such a list with a few more conditions answered 500 (the database's limit of 100 bound parameters); a saved view with such a filter lists again.",
        routes: ["POST /records/query", "GET /records"],
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
