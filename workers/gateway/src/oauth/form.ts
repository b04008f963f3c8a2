import { OAuthError } from "./oauth-error";

/**
 * The parameters of an OAuth request (a query or an `application/x-www-form-urlencoded` body).
 * RFC 6749 section 3.1 forbids repeating a parameter; a repeated one is refused rather than one
 * copy silently chosen, since two parts of a system picking different copies is how checks are
 * bypassed.
 */
export type OAuthParams = Map<string, string>;

export function paramsOf(search: URLSearchParams): OAuthParams | { repeated: string } {
  const params: OAuthParams = new Map();
  for (const [name, value] of search) {
    if (params.has(name)) return { repeated: name };
    params.set(name, value);
  }
  return params;
}

/** The form body of a token, revocation or consent request; anything else is `invalid_request`. */
export async function formParams(request: Request): Promise<OAuthParams> {
  const type = request.headers.get("content-type") ?? "";
  if (!/^application\/x-www-form-urlencoded\s*(;|$)/i.test(type))
    throw new OAuthError("invalid_request", "The body must be application/x-www-form-urlencoded");
  // Decoded by hand: workerd warns when `text()` reads a body whose type is not a text type.
  const params = paramsOf(new URLSearchParams(new TextDecoder().decode(await request.arrayBuffer())));
  if ("repeated" in params) throw new OAuthError("invalid_request", `The parameter ${params.repeated} is repeated`);
  return params;
}

/** A parameter's value; an empty value counts as absent (RFC 6749 section 3.1). */
export function optional(params: OAuthParams, name: string): string | null {
  const value = params.get(name);
  return value === undefined || value === "" ? null : value;
}

export function required(params: OAuthParams, name: string): string {
  const value = optional(params, name);
  if (value === null) throw new OAuthError("invalid_request", `The parameter ${name} is missing`);
  return value;
}
