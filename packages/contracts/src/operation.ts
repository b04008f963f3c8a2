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
  Events: "The events of the last 30 days, as webhooks deliver them",
  Integrations: "Connections of meeting-notes and calling providers, and the signed webhooks they send",
  Usage: "Token usage of the organization",
  "API keys": "Your API keys, managed with a console session (never with a key or token)",
  Public: "Published without credentials: the integrations catalogue and the change log",
} as const;
export type Tag = keyof typeof tagDescriptions;

/** Token cost in integer units: 0.2 displayed = 20 units (DESIGN.md section 4). */
export const costUnits = { free: 0, read: 20, write: 40 } as const;

/**
 * The response header in which a region reports what a request whose cost varies (`costPer`) is
 * charged, in integer units. It travels from the region to the gateway only: the gateway charges
 * it, shows it as `X-Token-Cost` and removes it.
 */
export const chargedUnitsHeader = "x-charged-cost-units";

/**
 * What every operation without a credential has in common: no scope, no organization (so the
 * gateway serves it), nothing to charge, and no MCP tool (tools act for a bearer).
 */
export const withoutCredential = {
  scope: null,
  auth: "none",
  servedBy: "gateway",
  costUnits: costUnits.free,
  mcpTool: null,
} as const;

type Method = "get" | "post" | "put" | "patch" | "delete";

type Server = "region" | "gateway";

/**
 * How the caller of an operation is identified, which the gateway's pipeline branches on:
 * `bearer` — an API key (later also an OAuth access token), authenticated, scoped and charged;
 * `none` — public, no credential, limited per client IP;
 * `signature` — a signed inbound request (webhooks of providers), verified by the route itself;
 * `session` — the console's session cookie, same origin only (the `/api-keys` routes): a bearer
 * credential is refused there, so a key can never mint keys.
 */
export type AuthKind = "bearer" | "none" | "signature" | "session";

/** The MCP tool annotations of an operation (MCP specification, `ToolAnnotations`). */
export interface McpHints {
  title: string;
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  /** Reaches people outside the organization (sends mail): the one open-world effect of the API. */
  openWorldHint: boolean;
}

/** Hints that follow from the HTTP method: reads are read-only, deletes destructive, PUT and DELETE idempotent. */
function methodHints(method: Method): Omit<McpHints, "title"> {
  return {
    readOnlyHint: method === "get",
    destructiveHint: method === "delete",
    idempotentHint: method === "get" || method === "put" || method === "delete",
    openWorldHint: false,
  };
}

interface OperationSpec<
  M extends Method,
  P extends string,
  Req extends RouteConfig["request"],
  Res extends RouteConfig["responses"],
  S extends Server,
  A extends AuthKind,
> {
  operationId: string;
  tag: Tag;
  summary: string;
  description: string;
  /** Scope both security schemes require; null when none is needed. */
  scope: Scope | null;
  /** Integer cost units of a successful request, or of one `costPer` unit when the cost varies. */
  costUnits: number;
  /**
   * What one `costUnits` pays for when a request's cost varies with its content (`record written`),
   * and how many of those one request may hold: the region then reports the request's units in
   * `chargedUnitsHeader`, and the gateway charges no more than `atMost` of them.
   */
  costPer?: { unit: string; atMost: number };
  /** How the caller is identified; `bearer` unless said otherwise. */
  auth?: A;
  /**
   * Name of the MCP tool generated from this operation (`<group>_<resource>_<verb>`). Only bearer
   * operations have one: MCP clients hold bearer tokens (DESIGN.md section 11), and the OpenAPI
   * document's `x-mcp-tool` must name only tools that exist.
   */
  mcpTool: A extends "bearer" ? string : null;
  /** Where the tool's hints differ from what the method implies (a POST that only reads, say); the title defaults to the summary. */
  mcpHints?: Partial<McpHints>;
  /**
   * The tool's `idempotencyKey` argument (the `Idempotency-Key` header of its request) is required
   * rather than optional: an agent that retries after a lost answer must not create twice
   * (reference rule 12, `records_create`).
   */
  mcpRequiresIdempotencyKey?: boolean;
  /**
   * The tool sends mail, so it takes `sendMode` (reference rule 12): omitted → a preview and nothing
   * sent, `send` → this operation, `draft` → the arguments saved by the tool `draftTool` instead.
   */
  mcpSendMode?: { draftTool: string };
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
  /**
   * A GET that answers one resource: it gets a strong `ETag` and 304 for `If-None-Match`, and the
   * PATCH, PUT and DELETE at its path take `If-Match` (`conditional-requests.ts`).
   */
  singleResource?: M extends "get" ? boolean : never;
  /**
   * The path template of the one resource a write answers or removes, where no single-resource GET
   * serves it (object types, fields, options, inbox views, comments, tags): the region reads its
   * representation itself (`workers/api/src/representations.ts`). A PATCH, PUT or DELETE names its
   * own path and takes `If-Match`; a POST names the path of the resource it creates and answers its
   * `ETag` (`conditional-requests.ts`).
   */
  resource?: M extends "get" ? never : string;
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
    Object.entries(responses).map(([status, response]) => [
      status,
      { ...response, headers: { ...successHeaders(write), ...("headers" in response ? response.headers : {}) } },
    ]),
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
  const A extends AuthKind = "bearer",
>(spec: OperationSpec<M, P, Req, Res, S, A>) {
  const auth = (spec.auth ?? "bearer") as A;
  // Without a bearer credential there is no organization, hence no region, to send the request to:
  // the gateway serves it, or (signed webhooks) finds the region from the connection in the path.
  if (auth !== "bearer" && spec.servedBy !== "gateway") {
    throw new Error(`${spec.operationId}: an operation with auth "${auth}" must be served by the gateway`);
  }
  if (spec.resource !== undefined && spec.method !== "post" && (spec.resource as string) !== spec.path) {
    throw new Error(`${spec.operationId}: a ${spec.method.toUpperCase()} changes the resource at its own path`);
  }
  const mcpHints: McpHints = { title: spec.summary, ...methodHints(spec.method), ...spec.mcpHints };
  const security = {
    bearer: [{ ApiKeyBearer: [] }, { ServiceOAuth: spec.scope ? [spec.scope] : [] }],
    session: [{ ConsoleSession: [] }],
    none: [],
    signature: [{ WebhookSignature: [] }],
  }[auth];
  // The gateway serves session operations itself and keeps no idempotency records for them; signed
  // inbound webhooks are deduplicated by their own `webhook-id` instead.
  const idempotent = spec.method !== "get" && auth !== "session" && auth !== "signature";
  const buildRoute = () =>
    createRoute<P, OperationRoute<M, P, Req, Res>>({
      method: spec.method,
      path: spec.path,
      operationId: spec.operationId,
      tags: [spec.tag],
      summary: spec.summary,
      description: spec.description,
      security,
      ...(idempotent ? { parameters: [idempotencyKeyParameter] } : {}),
      request: withStrictQuery(spec.request),
      responses: {
        ...errorResponses({
          write: spec.method !== "get",
          idempotent,
          credential: auth,
          paginated: isPaginated(spec.request),
          domainCodes: spec.errors ?? [],
        }),
        ...withSuccessHeaders(spec.responses, spec.method !== "get"),
      },
      "x-scope": spec.scope,
      "x-token-cost": spec.costUnits / 100,
      ...(spec.costPer ? { "x-token-cost-per": spec.costPer.unit } : {}),
      ...(spec.mcpTool === null ? {} : { "x-mcp-tool": spec.mcpTool, "x-mcp-hints": mcpHints }),
    });
  let route: OperationRoute<M, P, Req, Res> | undefined;
  const amendments: ((route: OperationRoute<M, P, Req, Res>) => void)[] = [];
  return {
    operationId: spec.operationId,
    method: spec.method,
    path: spec.path,
    tag: spec.tag,
    scope: spec.scope,
    costUnits: spec.costUnits,
    costPer: spec.costPer ?? null,
    auth,
    mcpTool: spec.mcpTool as A extends "bearer" ? string : null,
    mcpHints,
    mcpRequiresIdempotencyKey: spec.mcpRequiresIdempotencyKey ?? false,
    mcpSendMode: spec.mcpSendMode ?? null,
    singleResource: spec.singleResource ?? false,
    resource: (spec.resource ?? null) as string | null,
    servedBy: (spec.servedBy ?? "region") as S,
    /**
     * The zod-openapi route (schemas of every error and success response, security, extensions),
     * built on first use: a gateway isolate needs a few of them, and building all of them at startup
     * took a tenth of its script evaluation (issue 30 item 7). Built once, then the same object.
     */
    get route(): OperationRoute<M, P, Req, Res> {
      if (route === undefined) {
        route = buildRoute();
        for (const amend of amendments) amend(route);
      }
      return route;
    },
    /** Adds to the route what depends on the rest of the catalogue (conditional requests), when it is built. */
    amendRoute(amend: (route: OperationRoute<M, P, Req, Res>) => void): void {
      if (route === undefined) amendments.push(amend);
      else amend(route);
    },
    /** The path as the router matches it: `/records/:recordId` for `/records/{recordId}`. */
    routingPath: spec.path.replaceAll(/\/{(.+?)}/g, "/:$1"),
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

/**
 * Whether an operation may change data: not a `GET`, and not a `POST` the catalogue marks read-only
 * (`POST /records/query` reads with a body). Such an operation writes no events and takes no
 * idempotency-key argument as an MCP tool.
 */
export const changesData = (operation: Pick<Operation, "method" | "mcpHints">) =>
  operation.method !== "get" && !operation.mcpHints.readOnlyHint;
