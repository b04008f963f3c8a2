import { z } from "@hono/zod-openapi";
import { type ErrorCode, errorStatus } from "./errors";

/**
 * What every operation's responses carry besides the success body: the response headers of the
 * gateway and the regional Worker, and one error response per status listing exactly the codes
 * of `errorStatus` the operation can answer with. The OpenAPI document registers the headers as
 * components; operations refer to them.
 */

export const responseHeaders = {
  "X-Request-Id": {
    description: "Id of the request (`req_…`); equals `error.requestId` on failures. Quote it to support.",
    required: true,
    schema: { type: "string" as const, pattern: "^req_[0-9a-z]+$", maxLength: 64 },
  },
  "RateLimit-Policy": {
    description:
      'IETF RateLimit-Policy of the tightest window: `"<window>";q=<limit>;w=<seconds>`. Sent once the request is authenticated.',
    schema: { type: "string" as const, pattern: '^"[^"]+";q=\\d+;w=\\d+$', maxLength: 256 },
  },
  RateLimit: {
    description:
      'IETF RateLimit of the tightest window: `"<window>";r=<remaining>;t=<seconds to reset>`. Sent once the request is authenticated.',
    schema: { type: "string" as const, pattern: '^"[^"]+";r=\\d+;t=\\d+$', maxLength: 256 },
  },
  "X-Token-Cost": {
    description: "Token cost charged for this request, as displayed (reads `0.2`, writes `0.4`, free routes `0`).",
    required: true,
    schema: { type: "string" as const, pattern: "^\\d+(\\.\\d+)?$", maxLength: 16 },
  },
  "Retry-After": {
    description: "Whole seconds until the refusing window admits again (`ceil(retryAfterMs / 1000)`).",
    required: true,
    schema: { type: "integer" as const, format: "int32", minimum: 0, maximum: 86_400 },
  },
  "Idempotent-Replayed": {
    description: "`true` when this is the stored result of an earlier request with the same `Idempotency-Key`.",
    schema: { type: "string" as const, enum: ["true"] },
  },
  "Original-Request-Id": {
    description:
      "On a replay (`Idempotent-Replayed: true`): the id of the first request with this `Idempotency-Key`, whose result this is. `X-Request-Id` and an error's `requestId` are this request's own.",
    schema: { type: "string" as const, pattern: "^req_[0-9a-z]+$", maxLength: 64 },
  },
  ETag: {
    description:
      "Strong validator of this representation. Send it back in `If-None-Match`: while the representation is unchanged the answer is 304 without a body.",
    required: true,
    schema: { type: "string" as const, pattern: '^"[\\x21\\x23-\\x7e]*"$', maxLength: 128 },
  },
  WriteETag: {
    description:
      "Strong validator of the resource as this write left it (as its GET answers it, where it has one): send it in `If-Match` to change or delete it only while no one else changed it. Absent when the resource cannot be read back (it was deleted meanwhile).",
    schema: { type: "string" as const, pattern: '^"[\\x21\\x23-\\x7e]*"$', maxLength: 128 },
  },
  "Cache-Control": {
    description:
      "How long a cache (a browser, a CDN, a client) may keep this answer before revalidating it with `If-None-Match`.",
    required: true,
    schema: { type: "string" as const, maxLength: 128 },
  },
  "WWW-Authenticate": {
    description:
      'Bearer challenge: `Bearer realm="api", resource_metadata="<origin>/.well-known/oauth-protected-resource/api/v1"` (RFC 9728: where a client learns how to get a token), with `error="invalid_token"` or `error="insufficient_scope", scope="…"`.',
    schema: { type: "string" as const, maxLength: 512 },
  },
};

export type ResponseHeaderName = keyof typeof responseHeaders;

const headerRefs = (...names: ResponseHeaderName[]) =>
  Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]));

/** Headers of a success: cost on 2xx only (the gateway charges successes), replay marker on writes. */
export const successHeaders = (write: boolean) =>
  headerRefs(
    "X-Request-Id",
    "RateLimit-Policy",
    "RateLimit",
    "X-Token-Cost",
    ...(write ? (["Idempotent-Replayed", "Original-Request-Id"] as const) : []),
  );

/** Headers of a cacheable public answer (200 and 304). */
export const cacheableHeaders = headerRefs("ETag", "Cache-Control");

const statusDescriptions: Partial<Record<number, string>> = {
  400: "The request cannot be accepted; validation problems are listed in `details` as `{ path, message }`",
  401: "No token, or one that is malformed, unknown, expired or revoked",
  403: "Missing scope, workspace outside the credential's reach, or a role that does not allow the action",
  404: "Unknown id, or an id of another organization",
  409: "Conflict with the current state, or the same `Idempotency-Key` still in flight",
  413: "Body larger than 1 MiB",
  412: "`If-Match` names a version of the resource that is no longer current; nothing was written",
  415: "Body is not `application/json`",
  422: "`Idempotency-Key` reused with a different request",
  429: "Rate limit exceeded; see `Retry-After` and `retryAfterMs`",
  500: "Internal error; quote `requestId` to support",
};

const headersForStatus = (status: number) => {
  if (status === 401) return headerRefs("X-Request-Id", "RateLimit-Policy", "RateLimit", "WWW-Authenticate");
  if (status === 403) return headerRefs("X-Request-Id", "RateLimit-Policy", "RateLimit", "WWW-Authenticate");
  if (status === 429) return headerRefs("X-Request-Id", "RateLimit-Policy", "RateLimit", "Retry-After");
  if (status >= 400 && status < 500) return headerRefs("X-Request-Id", "RateLimit-Policy", "RateLimit");
  return headerRefs("X-Request-Id");
};

/** What each error code says, as the service words it: the example of every error answer. */
const exampleErrors: Record<ErrorCode, { message: string; details?: unknown; retryAfterMs?: number }> = {
  invalid_request: {
    message: "The request is not valid; see details.",
    details: [{ path: "body.fields.email", message: "Expected an e-mail address" }],
  },
  invalid_cursor: { message: "The cursor is not one of this list's" },
  invalid_idempotency_key: { message: "Idempotency-Key must be 1 to 200 characters long" },
  organization_required: {
    message: "Name the organization to act in with X-Service-Organization-Id",
    details: [{ id: "org_01jd5q0m4x8r2w3y6z7a9b", name: "Acme Inc." }],
  },
  organization_mismatch: { message: "X-Service-Organization-Id names an organization this credential cannot act in" },
  unauthorized: { message: "Missing or invalid credential" },
  invalid_token: { message: "The access token has expired" },
  insufficient_scope: {
    message: "This credential lacks the scope crm:records:write",
    details: { requiredScope: "crm:records:write" },
  },
  workspace_forbidden: { message: "This key is limited to other workspaces" },
  forbidden: { message: "Members and above may do this" },
  not_found: { message: "Record not found" },
  method_not_allowed: { message: "DELETE is not allowed here; use GET, PATCH" },
  identity_conflict: { message: "Another record of this object type holds the same email" },
  idempotency_key_in_use: { message: "A request with this Idempotency-Key is still in flight; retry later" },
  source_managed_task: { message: "This task is managed by its source and cannot be changed here" },
  system_resource: { message: "System object types cannot be deleted" },
  conflict: { message: "Another object type has the same slug in the same workspace" },
  recipient_unsubscribed: { message: "ada@example.com unsubscribed from this mailbox" },
  webhook_disabled: { message: "The webhook is disabled; enable it first" },
  delivery_pending: { message: "The delivery is still being attempted" },
  replay_in_progress: {
    message: "Another replay of this subscription is still sending; replay again once it is done",
    details: { waiting: 1800 },
  },
  route_removed: { message: "GET /record-email-attachment-download was removed from the API; see the change log" },
  precondition_failed: { message: "The resource changed since the version If-Match names" },
  payload_too_large: { message: "The request body is larger than 1 MiB" },
  unsupported_media_type: { message: "Send the request body as application/json" },
  idempotency_key_reused: { message: "This Idempotency-Key was used for a different request" },
  rate_limited: { message: "Rate limit reached for this API key; retry later", retryAfterMs: 1200 },
  internal_error: { message: "Internal error" },
};

/** The envelope's fields but its code: one set of schemas for every operation's errors. */
const errorFields = {
  message: z.string().max(2_000),
  requestId: z.string().max(64).openapi({ description: "Quote it to support; equals the X-Request-Id header." }),
  details: z
    .unknown()
    .optional()
    .openapi({ description: "Validation problems (`[{ path, message }]`) or what the code describes" }),
  retryAfterMs: z
    .number()
    .int()
    .min(0)
    .max(86_400_000)
    .optional()
    .openapi({ description: "Present on rate-limit errors.", format: "int32" }),
};

const errorBodies = new Map<string, ReturnType<typeof newErrorBody>>();

/** The envelope of the given codes, its first code as the example. */
const newErrorBody = (codes: [ErrorCode, ...ErrorCode[]]) =>
  z.object({
    error: z
      .object({ code: z.enum(codes), ...errorFields })
      .openapi({ example: { code: codes[0], requestId: "req_01jd5q0m4x8r2w3y6z7a9b", ...exampleErrors[codes[0]] } }),
  });

/**
 * The error envelope with `code` limited to the given codes (all of one status), made once per list
 * of codes: every operation of the catalogue asks for a few of the same, and building them anew was
 * a third of the gateway's script evaluation (issue 30).
 */
function errorBodyWith(codes: [ErrorCode, ...ErrorCode[]]) {
  const key = codes.join(" ");
  let body = errorBodies.get(key);
  if (!body) {
    body = newErrorBody(codes);
    errorBodies.set(key, body);
  }
  return body;
}

/** Codes every operation can answer, by kind of operation; domain codes are added per operation. */
const readCodes: ErrorCode[] = [
  "invalid_request",
  "organization_required",
  "organization_mismatch",
  "unauthorized",
  "invalid_token",
  "insufficient_scope",
  "workspace_forbidden",
  "forbidden",
  "not_found",
  "rate_limited",
  "internal_error",
];
const writeCodes: ErrorCode[] = [
  ...readCodes,
  "invalid_idempotency_key",
  "idempotency_key_in_use",
  "conflict",
  "payload_too_large",
  "unsupported_media_type",
  "idempotency_key_reused",
];

/** Codes only an operation that takes a bearer credential can answer. */
const credentialCodes: ErrorCode[] = [
  "unauthorized",
  "invalid_token",
  "insufficient_scope",
  "organization_required",
  "organization_mismatch",
];
/** What a console session can be refused with: no session, no organization chosen, another organization. */
const sessionCodes: ErrorCode[] = ["unauthorized", "organization_required", "organization_mismatch"];
/** Codes of an `Idempotency-Key`; the gateway's session operations take none. */
const idempotencyCodes: ErrorCode[] = ["invalid_idempotency_key", "idempotency_key_in_use", "idempotency_key_reused"];

export interface ErrorCodeOptions {
  write: boolean;
  /** Takes an `Idempotency-Key` (every write served by a region). */
  idempotent: boolean;
  /** How the caller is identified: a bearer credential can answer 401 and scope errors, a session fewer. */
  credential: "bearer" | "session" | "none" | "signature";
  /** Lists take a cursor, so they can answer `invalid_cursor`. */
  paginated: boolean;
  /** Codes of this operation's domain (`identity_conflict`, `system_resource`, …). */
  domainCodes: readonly ErrorCode[];
}

/** The error responses of an operation: one per status, its `code` an enum read from `errorStatus`. */
export function errorResponses({ write, idempotent, credential, paginated, domainCodes }: ErrorCodeOptions) {
  const codes = new Set<ErrorCode>([
    ...(write ? writeCodes : readCodes),
    ...(paginated ? ["invalid_cursor" as const] : []),
    ...domainCodes,
  ]);
  if (credential !== "bearer") for (const code of credentialCodes) codes.delete(code);
  if (credential === "session") for (const code of sessionCodes) codes.add(code);
  // A signed request without a valid signature is unauthenticated, though it carries no bearer token.
  if (credential === "signature") codes.add("unauthorized");
  if (!idempotent) for (const code of idempotencyCodes) codes.delete(code);
  const byStatus = new Map<number, [ErrorCode, ...ErrorCode[]]>();
  for (const code of codes) {
    const status = errorStatus[code];
    const list = byStatus.get(status);
    if (list) list.push(code);
    else byStatus.set(status, [code]);
  }
  return Object.fromEntries(
    [...byStatus].map(([status, statusCodes]) => [
      status,
      {
        description: `${statusDescriptions[status] ?? "Error"}. Codes: ${statusCodes.map((code) => `\`${code}\``).join(", ")}.`,
        headers: headersForStatus(status),
        content: { "application/json": { schema: errorBodyWith(statusCodes) } },
      },
    ]),
  );
}
