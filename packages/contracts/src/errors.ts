import { z } from "@hono/zod-openapi";
import { type InputNaming, namedDetails } from "./input-paths";

/** Every machine-readable error code of the public API, with the HTTP status it travels with. */
export const errorStatus = {
  invalid_request: 400,
  invalid_cursor: 400,
  invalid_idempotency_key: 400,
  organization_required: 400,
  organization_mismatch: 400,
  unauthorized: 401,
  invalid_token: 401,
  insufficient_scope: 403,
  workspace_forbidden: 403,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  identity_conflict: 409,
  idempotency_key_in_use: 409,
  source_managed_task: 409,
  system_resource: 409,
  conflict: 409,
  recipient_unsubscribed: 409,
  webhook_disabled: 409,
  delivery_pending: 409,
  replay_in_progress: 409,
  route_removed: 410,
  precondition_failed: 412,
  payload_too_large: 413,
  unsupported_media_type: 415,
  idempotency_key_reused: 422,
  rate_limited: 429,
  internal_error: 500,
} as const;

export type ErrorCode = keyof typeof errorStatus;
export type ErrorStatus = (typeof errorStatus)[ErrorCode];

/**
 * The one error type of the platform. Thrown anywhere (gateway, regional Worker, validation);
 * a single `onError` hook turns it into the envelope, so no handler formats error JSON itself.
 */
export class ApiError extends Error {
  readonly status: ErrorStatus;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: unknown,
    readonly headers: Record<string, string> = {},
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = "ApiError";
    this.status = errorStatus[code];
  }
}

/** One entry of a 400's `details`: the request path at fault and what is wrong there. */
export type Problem = { path: string; message: string };

export const errorBodySchema = z
  .object({
    error: z.object({
      code: z.string().openapi({ example: "invalid_request" }),
      message: z.string(),
      requestId: z.string().openapi({ description: "Quote it to support; equals the X-Request-Id header." }),
      details: z.unknown().optional(),
      retryAfterMs: z.number().int().optional().openapi({ description: "Present on rate-limit errors." }),
    }),
  })
  .openapi("Error");

export type ErrorBody = z.infer<typeof errorBodySchema>;

/**
 * The envelope of an error as a surface answers it: invalid inputs in `details` named as `naming`
 * says (the REST API by where each travelled, `body.fields.email`; by default, and for MCP tools,
 * the input's own path, `fields.email`).
 */
export function errorBody(error: ApiError, requestId: string, naming?: InputNaming): ErrorBody {
  return {
    error: {
      code: error.code,
      message: error.message,
      requestId,
      ...(error.details === undefined ? {} : { details: namedDetails(error.details, naming) }),
      ...(error.retryAfterMs === undefined ? {} : { retryAfterMs: error.retryAfterMs }),
    },
  };
}
