import { toBase64Url } from "@crm/contracts";
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
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(body));
  return { body, etag: `"${toBase64Url(new Uint8Array(digest))}"` };
}

/** `[W/]"opaque"` list elements (`etagc` is `!`, `#`–`~` and obs-text), separated by commas and optional spaces. */
const entityTag = /[\t ]*(?:W\/)?"([\x21\x23-\x7e\x80-\xff]*)"[\t ]*(?:,|$)/y;

/**
 * Whether `If-None-Match` names the current representation: `*`, or one of its tags under weak
 * comparison (a `W/` prefix on either side is ignored). A field that is not a valid list matches
 * nothing, so the client gets the full answer rather than a 304 it did not ask for.
 */
export function noneMatchNames(header: string, etag: string): boolean {
  if (header.trim() === "*") return true;
  const current = etag.replace(/^W\//, "");
  const opaque = current.slice(1, -1);
  const tags: string[] = [];
  entityTag.lastIndex = 0;
  while (entityTag.lastIndex < header.length) {
    const start = entityTag.lastIndex;
    // Empty list elements (`a, , b`) are allowed by the list syntax and name nothing.
    const empty = /[\t ]*,/y;
    empty.lastIndex = start;
    if (empty.test(header)) {
      entityTag.lastIndex = empty.lastIndex;
      continue;
    }
    const match = entityTag.exec(header);
    if (!match) return false;
    tags.push(match[1] as string);
  }
  return tags.includes(opaque);
}

/** The cached answer, or 304 when the request's `If-None-Match` names it; both carry the validator. */
export function answerCached(c: Context, cached: CachedJson): Response {
  const headers = { etag: cached.etag, "cache-control": cacheControl };
  const ifNoneMatch = c.req.header("if-none-match");
  if (ifNoneMatch !== undefined && noneMatchNames(ifNoneMatch, cached.etag)) return c.body(null, 304, headers);
  return c.body(cached.body, 200, { ...headers, "content-type": "application/json" });
}
