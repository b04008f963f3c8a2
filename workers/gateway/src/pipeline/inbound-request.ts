import { ApiError, isJsonMediaType, type Operation, validationHook } from "@crm/contracts";
import type { OperationRequest } from "./operation-call";

/** A path segment as the client meant it; one whose escapes are not UTF-8 stays as sent (and fails its pattern). */
function decodedSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** The path parameters of a request the router matched to `template` (`/calling/webhooks/{provider}/{connectionId}`). */
function pathParameters(template: string, pathname: string): Record<string, string> {
  const names = template.split("/");
  // The router matched the template under `/api/v1`: its segments are the path's last ones.
  const segments = pathname.split("/").slice(-names.length);
  return Object.fromEntries(
    names.flatMap((name, i) => (name.startsWith("{") ? [[name.slice(1, -1), decodedSegment(segments[i] ?? "")]] : [])),
  );
}

/**
 * What a signed inbound delivery must be before its connection is looked up, as on every JSON route
 * (DESIGN.md section 2): a body sent as JSON (else 415), no query parameters (the inbound routes
 * declare none and, like every route, refuse undeclared ones) and path segments the document allows
 * (`{provider}` `^[a-z0-9-]{1,32}$`, an id for `{connectionId}`), else 400 as a malformed id anywhere is.
 */
export function checkInboundRequest(operation: Operation, request: OperationRequest): void {
  if (request.body !== null && request.body.byteLength > 0 && !isJsonMediaType(request.headers.get("content-type")))
    throw new ApiError("unsupported_media_type", "Send the request body as application/json");
  const unknown = [...request.url.searchParams.keys()];
  if (unknown.length > 0)
    throw new ApiError(
      "invalid_request",
      "The request is not valid; see details.",
      unknown.map((name) => ({ path: name, in: "query" as const, message: "Unknown property" })),
    );
  const params = operation.route.request?.params;
  if (params) validationHook({ ...params.safeParse(pathParameters(operation.path, request.url.pathname)), target: "param" });
}
