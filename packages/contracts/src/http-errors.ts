import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { routePath } from "hono/route";
import { logUnexpectedError } from "./error-log";
import { ApiError, type ErrorCode, errorBody } from "./errors";
import { type InvalidInput, inputNaming, type RequestPart } from "./input-paths";
import { illFormedStringPaths } from "./strings";
import { uniqueViolation } from "./unique-violation";

const codeForStatus: Partial<Record<number, ErrorCode>> = {
  400: "invalid_request",
  401: "unauthorized",
  404: "not_found",
  405: "method_not_allowed",
  413: "payload_too_large",
  415: "unsupported_media_type",
};

const camelCase = (name: string) => name.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());
const entityOf = (name: string) => name.replace(/_id$|s$/, "").replaceAll("_", " ");

/**
 * A database unique constraint that refused a write as 409 `conflict`. This is the guarantee behind
 * every unique name and slug: pre-checks give a friendlier message, but two concurrent creations both
 * pass them.
 */
function uniqueConflict(error: unknown): ApiError | undefined {
  const violation = uniqueViolation(error);
  if (!violation) return undefined;
  const value = violation.columns.at(-1) as string;
  const scope = violation.columns.slice(0, -1).map(entityOf);
  const entity = entityOf(violation.table);
  const within = scope.length > 0 ? ` in the same ${scope.join(" and ")}` : "";
  return new ApiError("conflict", `Another ${entity} has the same ${value.replaceAll("_", " ")}${within}`, {
    resource: camelCase(entity.replaceAll(" ", "_")),
    field: camelCase(value),
  });
}

/** Turns anything thrown in a handler into an ApiError; unknown failures become a bare 500. */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  const conflict = uniqueConflict(error);
  if (conflict) return conflict;
  if (error instanceof HTTPException) {
    const code = codeForStatus[error.status];
    // Hono's own 4xx (malformed JSON, body limit) carry a safe message; keep it.
    if (code) return new ApiError(code, error.message || "Bad request");
  }
  return new ApiError("internal_error", "Internal error");
}

/**
 * The single error hook of both Workers: every failure leaves in the same envelope with the
 * request id of the `X-Request-Id` header, its invalid inputs named as the surface that called
 * names them (`naming`; REST by default). Unexpected errors are logged without the values they
 * quote, never shown.
 */
export function respondWithError(error: unknown, c: Context, requestId: string, naming = inputNaming("api")): Response {
  const apiError = toApiError(error);
  if (apiError.code === "internal_error" && error !== apiError) {
    // The last matched route is the operation's own (`/api/v1/records/:recordId`), not the path with its ids.
    logUnexpectedError(error, { requestId, route: `${c.req.method} ${routePath(c, -1)}`, code: apiError.code });
  }
  return c.json(errorBody(apiError, requestId, naming), apiError.status, { ...apiError.headers, "x-request-id": requestId });
}

interface ValidationIssue {
  path: ReadonlyArray<PropertyKey>;
  message: string;
  code?: string;
  keys?: ReadonlyArray<string>;
  /** A union's: the issues of each of its branches. */
  errors?: ReadonlyArray<ReadonlyArray<ValidationIssue>>;
}

interface ValidationFailure {
  success: false;
  target: string;
  data?: unknown;
  error: { issues: ReadonlyArray<ValidationIssue> };
}

interface ValidationSuccess {
  success: true;
  target: string;
  data?: unknown;
}

/** The part of the request a validator reads. */
const targetParts: Record<string, RequestPart> = {
  json: "body",
  query: "query",
  param: "path",
  header: "header",
  cookie: "cookie",
};

/**
 * The issues a client can act on. A union's issue (`invalid_union`) names the union only; when all
 * its branches but one failed for the value being another kind altogether (the `null` of a nullable
 * filter, given an object), the value was meant for that one branch, so its own issues are reported,
 * under the union's path: `config.filter.conditions.0.operator`, not `config.filter`.
 */
function specificIssues(issue: ValidationIssue, prefix: PropertyKey[]): ValidationIssue[] {
  const path = [...prefix, ...issue.path];
  if (issue.code !== "invalid_union" || !issue.errors) return [{ ...issue, path }];
  const otherKind = (branch: ReadonlyArray<ValidationIssue>) =>
    branch.length === 1 && branch[0]?.code === "invalid_type" && branch[0].path.length === 0;
  const meant = issue.errors.filter((branch) => !otherKind(branch));
  if (meant.length !== 1) return [{ ...issue, path }];
  return (meant[0] as ReadonlyArray<ValidationIssue>).flatMap((inner) => specificIssues(inner, path));
}

/**
 * zod-openapi `defaultHook`, run on every validated part of every request (path, query, body) in
 * both Workers: a failed validation becomes 400 `invalid_request` with one detail per problem,
 * `path` naming the value in the input (`fields.email`, `limit`) and `in` the part it came in, so
 * the REST API answers `body.fields.email`, `query.limit`; an unknown property is named itself
 * (`body.isSystem`). Strings that are not well-formed Unicode (a lone surrogate) are refused here
 * too, whatever the schema says, so no field can store one.
 */
export function validationHook(result: ValidationSuccess | ValidationFailure): void {
  const part = targetParts[result.target] as RequestPart;
  const illFormed: InvalidInput[] = illFormedStringPaths(result.data, "").map((path) => ({
    path,
    message: "Not well-formed Unicode (a lone UTF-16 surrogate)",
    in: part,
  }));
  const invalid: InvalidInput[] = result.success
    ? []
    : result.error.issues
        .flatMap((issue) => specificIssues(issue, []))
        .flatMap((issue) => {
          const path = issue.path.map(String);
          if (issue.code === "unrecognized_keys" && issue.keys?.length) {
            return issue.keys.map((key) => ({ path: [...path, key].join("."), message: "Unknown property", in: part }));
          }
          return [{ path: path.join("."), message: issue.message, in: part }];
        });
  const details = [...invalid, ...illFormed];
  if (details.length > 0) throw new ApiError("invalid_request", "The request is not valid; see details.", details);
}
