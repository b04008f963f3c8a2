// What a window is and what admitting a request against windows answers: the types the windows, the
// isolate's lease holder and the headers share, in a module that imports nothing of this package.

export type WindowScope =
  | "organization"
  | "workspace"
  | "identity"
  | "api_key"
  | "route"
  | "platform"
  | "ip"
  | "public"
  | "mcp_discovery"
  | "failed_authentication"
  | "recipient"
  | "connection";

/** One counter a request must fit in; `key` names the Durable Object that keeps it. */
export interface RateWindow {
  readonly scope: WindowScope;
  readonly key: string;
  readonly limit: number;
  readonly windowMs: number;
}

/** The window closest to refusing, advertised in the `RateLimit` headers of an admitted request. */
export interface TightestWindow {
  readonly scope: WindowScope;
  readonly limit: number;
  readonly remaining: number;
  /** Whole seconds until `remaining` grows again, rounded up so a client never comes back early. */
  readonly resetSeconds: number;
  readonly windowMs: number;
}

/** The window that refused, for the 429 problem details and `Retry-After`. */
export interface RefusingWindow {
  readonly scope: WindowScope;
  readonly limit: number;
  readonly windowMs: number;
  readonly retryAfterMs: number;
}

export type Admittance =
  | { readonly allowed: true; readonly tightest: TightestWindow }
  | { readonly allowed: false; readonly refusing: RefusingWindow };
