import {
  ApiError,
  type ConditionalResource,
  catalogue,
  conditionalResourceOf,
  matchNames,
  noneMatchNames,
  type Operation,
  strongETagOf,
  takesIfMatch,
} from "@crm/contracts";
import type { Context, MiddlewareHandler } from "hono";
import type { AppEnv } from "./env";
import { handlers } from "./handlers";
import { type Representation, representations } from "./representations";

/**
 * Conditional requests in the regional Worker, for every operation `conditionalResourceOf` names a
 * resource for (packages/contracts/src/conditional-requests.ts). The validator is the hash of the
 * resource's representation now: what its single-resource GET answers, found by running its handler
 * with the resource's path parameters, or, for a resource without one, what `representations`
 * reads. Either is the one definition of the representation, whichever operation asks.
 */

type Params = Record<string, string>;

/** The resource's representation as JSON text and its version; null when it cannot be read (unknown, gone, out of reach). */
async function representationOf(
  c: Context<AppEnv>,
  resource: ConditionalResource,
  params: Params,
): Promise<{ body: string; updatedAt: unknown } | null> {
  try {
    if (resource.read === null) {
      const { body, updatedAt } = await (representations[resource.path] as Representation)(c.var, params);
      return { body: JSON.stringify(body), updatedAt };
    }
    const handler = handlers[resource.read.operationId as keyof typeof handlers] as unknown as (
      c: Context<AppEnv>,
    ) => Promise<Response>;
    // The GET reads the raw path parameters (before a write's own validation has run, an id that is
    // not one is simply not found, and the write answers its own 400 after).
    c.req.addValidatedData("param", params);
    const response = await handler(c);
    if (response.status !== 200) return null;
    const body = await response.text();
    // One resource, wrapped in a key named after it (DESIGN.md section 2).
    const [shown] = Object.values(JSON.parse(body) as Record<string, { updatedAt?: unknown }>);
    return { body, updatedAt: shown?.updatedAt };
  } catch (error) {
    if (error instanceof ApiError) return null;
    throw error;
  }
}

/** The resource as it is now: its `ETag` and `updatedAt`; null when it cannot be read. */
async function currentVersion(
  c: Context<AppEnv>,
  resource: ConditionalResource,
  params: Params,
): Promise<{ etag: string; updatedAt: unknown } | null> {
  const current = await representationOf(c, resource, params);
  return current && { etag: await strongETagOf(current.body), updatedAt: current.updatedAt };
}

/** The path parameters of a created resource: the creation's own, and the new id for the one its path lacks. */
async function createdParams(c: Context<AppEnv>, resource: ConditionalResource): Promise<Params> {
  const [created] = Object.values((await c.res.clone().json()) as Record<string, { id?: unknown }>);
  const own = c.req.param() as Params;
  const names = [...resource.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1] as string);
  return Object.fromEntries(names.map((name) => [name, own[name] ?? String(created?.id)]));
}

/** Every resource without a GET must have a representation: a catalogue declaration the region cannot serve fails at start. */
function conditionalResource(operation: Operation): ConditionalResource | null {
  const resource = conditionalResourceOf(operation, catalogue);
  if (resource && resource.read === null && !(resource.path in representations)) {
    throw new Error(`${operation.operationId}: no representation of ${resource.path} (representations.ts)`);
  }
  return resource;
}

/** Headers of a 304: those of the full answer but its body's. */
function notModified(response: Response, etag: string): Response {
  const headers = new Headers(response.headers);
  for (const name of ["content-type", "content-length"]) headers.delete(name);
  headers.set("etag", etag);
  return new Response(null, { status: 304, headers });
}

/**
 * Outside the idempotency middleware, so replays carry it too: a single-resource GET's `ETag` (and
 * 304 for an `If-None-Match` naming it), a PATCH's or PUT's `ETag` of the resource after it, and a
 * creation's of the resource it made.
 */
export function entityTags(operation: Operation): MiddlewareHandler<AppEnv> | null {
  const resource = conditionalResource(operation);
  if (!resource || operation.method === "delete") return null;
  const creates = operation.method === "post";
  return async (c, next) => {
    await next();
    if (c.res.status !== (creates ? 201 : 200)) return;
    const etag =
      operation === resource.read
        ? await strongETagOf(await c.res.clone().text())
        : ((await currentVersion(c, resource, creates ? await createdParams(c, resource) : (c.req.param() as Params)))?.etag ??
          null);
    if (etag === null) return;
    const ifNoneMatch = c.req.header("if-none-match");
    if (operation === resource.read && ifNoneMatch !== undefined && noneMatchNames(ifNoneMatch, etag)) {
      c.res = notModified(c.res, etag);
      return;
    }
    c.res.headers.set("etag", etag);
  };
}

/**
 * Inside the idempotency middleware (a replay answers what the first request did): a PATCH, PUT or
 * DELETE with `If-Match` runs only while it names the resource as it is now, else 412 and nothing
 * is written; a PATCH then changes that very version (its `updatedAt`) or none. An unknown
 * resource goes on to the handler's own 404, except under a PUT, which would create it: 412.
 */
export function preconditions(operation: Operation): MiddlewareHandler<AppEnv> | null {
  const resource = conditionalResource(operation);
  if (!resource || !takesIfMatch(operation, catalogue)) return null;
  return async (c, next) => {
    const ifMatch = c.req.header("if-match");
    if (ifMatch !== undefined) {
      const current = await currentVersion(c, resource, c.req.param() as Params);
      // A PUT would make a resource that is not there: a version named that no longer exists is stale.
      if (current === null && operation.method === "put" && ifMatch.trim() !== "*") {
        throw new ApiError("precondition_failed", "The resource changed since the version If-Match names; read it again");
      }
      if (current !== null && !matchNames(ifMatch, current.etag)) {
        throw new ApiError("precondition_failed", "The resource changed since the version If-Match names; read it again");
      }
      // The change then applies to this very version, or is 412 (`changeWithoutLoss`).
      if (current !== null && ifMatch.trim() !== "*" && typeof current.updatedAt === "number") {
        c.set("precondition", current.updatedAt);
      }
    }
    await next();
  };
}
