import { createRoute, type RouteConfig, z } from "@hono/zod-openapi";
import type { ErrorCode } from "./errors";
import { errorResponses, successHeaders } from "./responses";
import type { Scope } from "./scopes";

/** Operation groups of the reference (plus Usage), as they appear in the OpenAPI document. */
export const tagDescriptions = {
  Workspaces: "Workspaces of the organization the credential belongs to",
  CRM: "Object types, fields, select options and saved record views",
  Records: "CRM records",
  Tasks: "Tasks linked to records",
  Notes: "Notes on records",
  Inbox: "Shared inbox conversations, views and drafts",
  Meetings: "Meetings with recording and transcript metadata",
  Webhooks: "Outbound webhook subscriptions and deliveries",
  Usage: "Token usage of the organization",
} as const;
export type Tag = keyof typeof tagDescriptions;

/** Token cost in integer units: 0.2 displayed = 20 units (DESIGN.md section 4). */
export const costUnits = { free: 0, read: 20, write: 40 } as const;

type Method = "get" | "post" | "put" | "patch" | "delete";

type Server = "region" | "gateway";

interface OperationSpec<
  M extends Method,
  P extends string,
  Req extends RouteConfig["request"],
  Res extends RouteConfig["responses"],
  S extends Server,
> {
  operationId: string;
  tag: Tag;
  summary: string;
  description: string;
  /** Scope both security schemes require; null when none is needed. */
  scope: Scope | null;
  costUnits: number;
  /** Name of the MCP tool generated from this operation (`<group>_<resource>_<verb>`). */
  mcpTool: string;
  /**
   * Where the handler runs: the organization's regional Worker (default), or the gateway itself
   * for operations on control-plane data (usage ledger, API keys) that lives only there.
   */
  servedBy?: S;
  method: M;
  /** Path template relative to `{base_url}` (which already holds `/api/v1`), OpenAPI style `{id}`. */
  path: P;
  request?: Req;
  responses: Res;
  /** Error codes of this operation's domain beyond those every read or write can answer (e.g. `system_resource`). */
  errors?: readonly ErrorCode[];
}

/** Documented on every write; read and checked by the idempotency middleware, not by zod. */
const idempotencyKeyParameter = {
  name: "Idempotency-Key",
  in: "header" as const,
  required: false,
  description: "1 to 200 characters, bare or quoted. Retrying with the same key replays the first result for 24 hours.",
  schema: { type: "string" as const, minLength: 1, maxLength: 200 },
};

/** An operation without query parameters still refuses unknown ones (400), like every list does. */
const noQueryParameters = z.object({}).strict();

/** The request of an operation, with a strict empty query schema when it declares none. */
const withStrictQuery = <Req extends RouteConfig["request"]>(request: Req | undefined) =>
  ({ query: noQueryParameters, ...request }) as Req;

const hasCursor = (schema: unknown) => schema instanceof z.ZodObject && "cursor" in schema.shape;

/** Lists read a `cursor` (in the query, or in the body of a query operation), so they can answer `invalid_cursor`. */
const isPaginated = (request: RouteConfig["request"] | undefined) =>
  hasCursor(request?.query) ||
  Object.values(request?.body?.content ?? {}).some(
    (media) => media !== undefined && "schema" in media && hasCursor(media.schema),
  );

/** Success responses carry the headers every success carries (request id, rate limits, cost). */
const withSuccessHeaders = <Res extends RouteConfig["responses"]>(responses: Res, write: boolean) =>
  Object.fromEntries(
    Object.entries(responses).map(([status, response]) => [status, { ...response, headers: successHeaders(write) }]),
  ) as Res;

/** The zod-openapi route of an operation, keeping the literal method, path and schemas for typed handlers. */
type OperationRoute<M extends Method, P extends string, Req, Res> = Omit<
  RouteConfig,
  "method" | "path" | "request" | "responses"
> & {
  method: M;
  path: P;
  request: Req;
  responses: Res;
};

/**
 * One public operation of the route catalogue: its HTTP contract (a zod-openapi route) plus
 * what the gateway needs (scope, cost, MCP tool name). Everything about a route is said here once.
 */
export function defineOperation<
  const M extends Method,
  const P extends string,
  const Req extends RouteConfig["request"],
  const Res extends RouteConfig["responses"],
  const S extends Server = "region",
>(spec: OperationSpec<M, P, Req, Res, S>) {
  const route = createRoute<P, OperationRoute<M, P, Req, Res>>({
    method: spec.method,
    path: spec.path,
    operationId: spec.operationId,
    tags: [spec.tag],
    summary: spec.summary,
    description: spec.description,
    security: [{ ApiKeyBearer: [] }, { ServiceOAuth: spec.scope ? [spec.scope] : [] }],
    ...(spec.method === "get" ? {} : { parameters: [idempotencyKeyParameter] }),
    request: withStrictQuery(spec.request),
    responses: {
      ...errorResponses({ write: spec.method !== "get", paginated: isPaginated(spec.request), domainCodes: spec.errors ?? [] }),
      ...withSuccessHeaders(spec.responses, spec.method !== "get"),
    },
    "x-scope": spec.scope,
    "x-token-cost": spec.costUnits / 100,
    "x-mcp-tool": spec.mcpTool,
  });
  return {
    operationId: spec.operationId,
    method: spec.method,
    path: spec.path,
    tag: spec.tag,
    scope: spec.scope,
    costUnits: spec.costUnits,
    mcpTool: spec.mcpTool,
    servedBy: (spec.servedBy ?? "region") as S,
    route,
  };
}

export type Operation = ReturnType<typeof defineOperation>;

/** JSON response helper for the success entry of `responses`. */
export const jsonResponse = <T extends z.ZodType>(description: string, schema: T) => ({
  description,
  content: { "application/json": { schema } },
});

/** Strict JSON request body: unknown properties are rejected, never silently dropped. */
export const jsonBody = <T extends z.ZodType>(schema: T, required = true) => ({
  required,
  content: { "application/json": { schema } },
});
