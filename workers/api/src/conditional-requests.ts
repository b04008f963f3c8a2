import { ApiError, catalogue, conditionalReadOf, matchNames, noneMatchNames, type Operation, strongETagOf } from "@crm/contracts";
import type { Context, MiddlewareHandler } from "hono";
import type { AppEnv } from "./env";
import { handlers } from "./handlers";

/**
 * Conditional requests in the regional Worker, for every operation `conditionalReadOf` names a
 * single-resource GET for (packages/contracts/src/conditional-requests.ts). The validator is the
 * hash of what that GET answers now, found by running its handler with the request's own path
 * parameters (the same path, so the same names): the one definition of the resource's
 * representation, whichever operation asks.
 */

/** The resource as its GET answers it now: its `ETag` and `updatedAt`; null when that is not a 200 (unknown, gone, not reachable). */
async function currentVersion(c: Context<AppEnv>, read: Operation): Promise<{ etag: string; updatedAt: unknown } | null> {
  const handler = handlers[read.operationId as keyof typeof handlers] as unknown as (c: Context<AppEnv>) => Promise<Response>;
  // Before the write's own validation has run (an `If-Match` check), the GET reads the raw path
  // parameters: an id that is not one is simply not found, and the write answers its own 400 after.
  if (!c.req.valid("param" as never)) c.req.addValidatedData("param", c.req.param());
  try {
    const response = await handler(c);
    if (response.status !== 200) return null;
    const body = await response.text();
    // One resource, wrapped in a key named after it (DESIGN.md section 2).
    const [resource] = Object.values(JSON.parse(body) as Record<string, { updatedAt?: unknown }>);
    return { etag: await strongETagOf(body), updatedAt: resource?.updatedAt };
  } catch (error) {
    if (error instanceof ApiError) return null;
    throw error;
  }
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
 * 304 for an `If-None-Match` naming it), and a PATCH's or PUT's `ETag` of the resource after it.
 */
export function entityTags(operation: Operation): MiddlewareHandler<AppEnv> | null {
  const read = conditionalReadOf(operation, catalogue);
  if (!read || operation.method === "delete") return null;
  return async (c, next) => {
    await next();
    if (c.res.status !== 200) return;
    const etag =
      operation === read ? await strongETagOf(await c.res.clone().text()) : ((await currentVersion(c, read))?.etag ?? null);
    if (etag === null) return;
    const ifNoneMatch = c.req.header("if-none-match");
    if (operation === read && ifNoneMatch !== undefined && noneMatchNames(ifNoneMatch, etag)) {
      c.res = notModified(c.res, etag);
      return;
    }
    c.res.headers.set("etag", etag);
  };
}

/**
 * Inside the idempotency middleware (a replay answers what the first request did): a PATCH, PUT or
 * DELETE with `If-Match` runs only while it names the resource as its GET answers it now, else
 * 412 and nothing is written; a PATCH then changes that very version (its `updatedAt`) or none. An
 * unknown resource goes on to the handler's own 404.
 */
export function preconditions(operation: Operation): MiddlewareHandler<AppEnv> | null {
  const read = conditionalReadOf(operation, catalogue);
  if (!read || operation === read) return null;
  return async (c, next) => {
    const ifMatch = c.req.header("if-match");
    if (ifMatch !== undefined) {
      const current = await currentVersion(c, read);
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
