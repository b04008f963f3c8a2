import { noneMatchNames, strongETagOf } from "@crm/contracts";
import type { Context } from "hono";

/**
 * Public answers that change only with a deploy (the integrations catalogue, the change log): the
 * JSON is built once per isolate, its strong `ETag` is a hash of those bytes, and a client holding
 * them revalidates with `If-None-Match` for a 304 without a body (RFC 9110 sections 8.8.3, 13.1.2).
 */
export interface CachedJson {
  body: string;
  etag: string;
}

/** Caches may keep an answer five minutes, then revalidate; a deploy shows within that time. */
const cacheControl = "public, max-age=300";

export async function cachedJson(value: unknown): Promise<CachedJson> {
  const body = JSON.stringify(value);
  return { body, etag: await strongETagOf(body) };
}

/** The cached answer, or 304 when the request's `If-None-Match` names it; both carry the validator. */
export function answerCached(c: Context, cached: CachedJson): Response {
  const headers = { etag: cached.etag, "cache-control": cacheControl };
  const ifNoneMatch = c.req.header("if-none-match");
  if (ifNoneMatch !== undefined && noneMatchNames(ifNoneMatch, cached.etag)) return c.body(null, 304, headers);
  return c.body(cached.body, 200, { ...headers, "content-type": "application/json" });
}
