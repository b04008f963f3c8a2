import type { MiddlewareHandler } from "hono";
import { ApiError } from "./errors";
import { assertUtf8Body } from "./strings";

/** Deeper than any body of the API needs (a record's JSON values included), shallow enough for every walk over it. */
export const maxJsonDepth = 64;

const emptyObject = new TextEncoder().encode("{}");

/** Whether a `Content-Type` names JSON: `application/json` or a `+json` type, with or without parameters. */
export const isJsonMediaType = (type: string | null | undefined): boolean =>
  typeof type === "string" && /^application\/([\w.+-]+\+)?json\s*(;|$)/i.test(type);

/**
 * Whether JSON text nests arrays and objects deeper than `maxJsonDepth`: one pass over the
 * characters with a counter, never a recursion, so a body of 500 000 brackets is refused as
 * cheaply as it is read (DESIGN.md section 2: 400, never 500). Malformed JSON is left to the parser.
 */
export function jsonNestingExceeds(text: string, limit = maxJsonDepth): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === 0x5c) i++;
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) inString = true;
    else if (code === 0x5b || code === 0x7b) {
      if (++depth > limit) return true;
    } else if (code === 0x5d || code === 0x7d) depth--;
  }
  return false;
}

/**
 * What every JSON route of both Workers does with the body before validation reads it: another
 * media type is 415; bytes that are not UTF-8 or JSON nested deeper than `maxJsonDepth` levels are
 * 400; and no body at all, with or without `Content-Type: application/json`, is `{}` (DESIGN.md
 * section 2: a DELETE, a rotation, a draft's sending take no body or `{}` alike). A GET or HEAD
 * has no body to read, whatever its headers say (a Request of either method cannot carry one).
 */
export const jsonRequestBody: MiddlewareHandler = async (c, next) => {
  if (c.req.method === "GET" || c.req.method === "HEAD") return next();
  const length = c.req.header("content-length");
  const mayHaveBody = (length !== undefined && length !== "0") || c.req.header("transfer-encoding") !== undefined;
  const type = c.req.header("content-type");
  const isJson = isJsonMediaType(type);
  if (mayHaveBody && !isJson) throw new ApiError("unsupported_media_type", "Send the request body as application/json");
  const bytes = mayHaveBody ? await c.req.arrayBuffer() : new ArrayBuffer(0);
  if (bytes.byteLength > 0) {
    assertUtf8Body(bytes);
    if (jsonNestingExceeds(new TextDecoder().decode(bytes))) {
      throw new ApiError("invalid_request", "The request is not valid; see details.", [
        { path: "", in: "body", message: `JSON nested deeper than ${maxJsonDepth} levels` },
      ]);
    }
  } else if (isJson) {
    // The validator reads the request's body: an empty JSON body reads as `{}`.
    const headers = new Headers(c.req.raw.headers);
    headers.delete("content-length");
    c.req.raw = new Request(c.req.raw, { headers, body: emptyObject });
  }
  await next();
};

/**
 * A query whose percent-encoding is not UTF-8 (`q=%ED%A0%80`, a lone surrogate in CESU-8) would
 * decode to U+FFFD and search for something the client never sent: 400 naming the parameter, as
 * for any other ill-formed input.
 */
export const wellFormedQuery: MiddlewareHandler = async (c, next) => {
  const url = c.req.url;
  const queryStart = url.indexOf("?");
  // Only a percent-escape can decode to something that is not UTF-8: most requests have none.
  if (queryStart === -1 || !url.includes("%", queryStart)) return next();
  const invalid = new URL(url).search
    .slice(1)
    .split("&")
    .filter((pair) => pair.length > 0 && decoded(pair.replaceAll("=", "")) === null)
    .map((pair) => ({ path: decoded(pair.split("=")[0] ?? "") ?? "?", in: "query" as const, message: "Not valid UTF-8" }));
  if (invalid.length > 0) throw new ApiError("invalid_request", "The request is not valid; see details.", invalid);
  await next();
};

/** A percent-encoded query component, decoded; null when its bytes are not UTF-8. */
function decoded(component: string): string | null {
  try {
    return decodeURIComponent(component.replaceAll("+", " "));
  } catch {
    return null;
  }
}
