import { toBase64Url } from "./base64";
import type { Operation } from "./operation";
import { errorResponses } from "./responses";

/**
 * Conditional requests (RFC 9110 section 13, DESIGN.md section 2). A GET the catalogue declares
 * `singleResource` answers a strong `ETag`, a hash of its JSON, and 304 without a body to an
 * `If-None-Match` naming it. The PATCH, PUT and DELETE at the same path take `If-Match`: 412
 * `precondition_failed`, nothing written, unless it names the representation that GET answers now;
 * a PATCH or PUT answers the `ETag` of the resource after it. A resource without such a GET takes
 * part through the `resource` its writes declare (the region then reads its representation
 * itself), and its creation answers the new resource's `ETag` too. A route added later takes part
 * by that one declaration: the document and both Workers read it from here.
 */

/** The strong entity tag of a representation: the base64url SHA-256 of its bytes, quoted. */
export async function strongETagOf(body: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(body));
  return `"${toBase64Url(new Uint8Array(digest))}"`;
}

/** `[W/]"opaque"` list elements (`etagc` is `!`, `#`–`~` and obs-text), separated by commas and optional spaces. */
const entityTag = /[\t ]*(W\/)?"([\x21\x23-\x7e\x80-\xff]*)"[\t ]*(?:,|$)/y;

/** The tags of an `If-Match` or `If-None-Match` list, or null when the field is not a valid list. */
function entityTagsOf(header: string): { weak: boolean; opaque: string }[] | null {
  const tags: { weak: boolean; opaque: string }[] = [];
  entityTag.lastIndex = 0;
  while (entityTag.lastIndex < header.length) {
    // Empty list elements (`a, , b`) are allowed by the list syntax and name nothing.
    const empty = /[\t ]*,/y;
    empty.lastIndex = entityTag.lastIndex;
    if (empty.test(header)) {
      entityTag.lastIndex = empty.lastIndex;
      continue;
    }
    const match = entityTag.exec(header);
    if (!match) return null;
    tags.push({ weak: match[1] !== undefined, opaque: match[2] as string });
  }
  return tags;
}

const opaqueOf = (etag: string) => etag.replace(/^W\//, "").slice(1, -1);

/**
 * Whether `If-None-Match` names the current representation: `*`, or one of its tags under weak
 * comparison (a `W/` prefix on either side is ignored). A field that is not a valid list matches
 * nothing, so the client gets the full answer rather than a 304 it did not ask for.
 */
export function noneMatchNames(header: string, etag: string): boolean {
  if (header.trim() === "*") return true;
  return (entityTagsOf(header) ?? []).some((tag) => tag.opaque === opaqueOf(etag));
}

/**
 * Whether `If-Match` names the current representation: `*`, or one of its tags under strong
 * comparison (a weak tag never matches). A field that is not a valid list matches nothing.
 */
export function matchNames(header: string, etag: string): boolean {
  if (header.trim() === "*") return true;
  return (entityTagsOf(header) ?? []).some((tag) => !tag.weak && tag.opaque === opaqueOf(etag));
}

/**
 * The resource whose representation an operation's `ETag` and conditions name: its path template,
 * and the single-resource GET that answers it there, or null where the catalogue has none and the
 * region reads it itself (an operation's `resource`).
 */
export interface ConditionalResource {
  path: string;
  read: Operation | null;
}

/** The resource an operation's conditions name: a single-resource GET's own, a write's at its path, a creation's `resource`. */
export function conditionalResourceOf(operation: Operation, catalogue: readonly Operation[]): ConditionalResource | null {
  const readAt = (path: string) =>
    catalogue.find((read) => read.method === "get" && read.singleResource && read.path === path) ?? null;
  if (operation.method === "get") return operation.singleResource ? { path: operation.path, read: operation } : null;
  if (operation.resource !== null) return { path: operation.resource, read: readAt(operation.resource) };
  if (operation.method === "post") return null;
  const read = readAt(operation.path);
  return read ? { path: operation.path, read } : null;
}

/** Whether a write takes `If-Match`: a PATCH, PUT or DELETE of a resource that has an `ETag` (a creation has nothing to compare). */
export const takesIfMatch = (operation: Operation, catalogue: readonly Operation[]) =>
  operation.method !== "get" && operation.method !== "post" && conditionalResourceOf(operation, catalogue) !== null;

const ifNoneMatchParameter = {
  name: "If-None-Match",
  in: "header" as const,
  required: false,
  description: "ETags of representations you hold (or `*`): 304 without a body while one of them is current.",
  schema: { type: "string" as const, maxLength: 2048 },
};

const ifMatchParameter = {
  name: "If-Match",
  in: "header" as const,
  required: false,
  description:
    "The `ETag` of the resource as you read it (or `*`): when it changed since, 412 `precondition_failed` and nothing is written.",
  schema: { type: "string" as const, maxLength: 2048 },
};

const etagRef = { $ref: "#/components/headers/ETag" };
const writeETagRef = { $ref: "#/components/headers/WriteETag" };
const requestIdRef = { $ref: "#/components/headers/X-Request-Id" };

/** The parts of a route this module adds to, loosely typed: it only appends documented parameters and responses. */
interface Route {
  parameters?: unknown[];
  responses: Record<string, { headers?: Record<string, unknown> } & Record<string, unknown>>;
}

/** The conditions an operation takes, added to its route: headers, 304 or 412, and the `ETag` of its success. */
function documentConditions(operation: Operation, route: Route): void {
  const success = route.responses["200"];
  if (operation.method === "post") {
    const created = route.responses["201"] ?? success;
    if (created) created.headers = { ...created.headers, ETag: writeETagRef };
    return;
  }
  if (operation.method === "get") {
    route.parameters = [...(route.parameters ?? []), ifNoneMatchParameter];
    if (success) success.headers = { ...success.headers, ETag: etagRef };
    route.responses["304"] = {
      description: "Not modified: the representation you named in `If-None-Match` is current",
      headers: { "X-Request-Id": requestIdRef, ETag: etagRef },
    };
    return;
  }
  route.parameters = [...(route.parameters ?? []), ifMatchParameter];
  if (success && operation.method !== "delete") success.headers = { ...success.headers, ETag: writeETagRef };
  route.responses["412"] = errorResponses({
    write: true,
    idempotent: false,
    credential: "none",
    paginated: false,
    domainCodes: ["precondition_failed"],
  })["412"] as Route["responses"][string];
}

/** Declares the conditions each operation takes in its route, when that route is built (`amendRoute`). */
export function documentConditionalRequests(catalogue: readonly Operation[]): void {
  for (const operation of catalogue) {
    if (conditionalResourceOf(operation, catalogue))
      operation.amendRoute((route) => documentConditions(operation, route as unknown as Route));
  }
}
