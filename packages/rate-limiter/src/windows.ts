import { clientAddressKey } from "./client-address";
import { type LeaseCounters, LeaseHolder, type RequestIo } from "./lease-holder";
import type { RateLimiter } from "./limiter-object";
import type { Admittance, RateWindow, WindowScope } from "./window-types";

/** Who is asking and for what, as the gateway knows it after authentication. */
export interface RateLimitedRequest {
  readonly organizationId: string;
  /** A workspace the request names; its window is the organization's own count for that id. */
  readonly workspaceId?: string | null;
  readonly actorId: string;
  readonly apiKeyId?: string | null;
  /** Method and path template, e.g. `GET /records/{recordId}`, so ids do not split the budget. */
  readonly routeKey: string;
}

const MINUTE_MS = 60_000;

/** Requests per minute for each scope. */
export const RATE_LIMITS = {
  organization: 600,
  workspace: 300,
  identity: 180,
  api_key: 180,
  route: 120,
  platform: 2000,
  ip: 60,
  // One global window per class of anonymous traffic (DESIGN.md section 4), each the platform's budget.
  public: 2000,
  mcp_discovery: 2000,
  failed_authentication: 2000,
  recipient: 60,
  connection: 600,
} as const satisfies Record<WindowScope, number>;

export type RateBudgets = Record<WindowScope, number>;

function minuteWindow(scope: WindowScope, key: string, budgets: RateBudgets = RATE_LIMITS): RateWindow {
  return { scope, key, limit: budgets[scope], windowMs: MINUTE_MS };
}

/** The budgets times `factor`: the benchmark raises them so that it measures the pipeline, not refusals. */
export const scaledBudgets = (factor: number): RateBudgets =>
  Object.fromEntries(Object.entries(RATE_LIMITS).map(([scope, limit]) => [scope, limit * factor])) as RateBudgets;

/** The windows an authenticated request must fit in; workspace and API key only when present. */
export function windowsFor(request: RateLimitedRequest, budgets: RateBudgets = RATE_LIMITS): RateWindow[] {
  const windows = [minuteWindow("organization", `org:${request.organizationId}`, budgets)];
  // Keyed by organization too: a workspace id is whatever the request names, before anything checked
  // that the caller may reach it, so another organization naming it must count on its own counter.
  if (request.workspaceId)
    windows.push(minuteWindow("workspace", `ws:${request.organizationId}:${request.workspaceId}`, budgets));
  windows.push(...callerWindows(request, budgets));
  windows.push(minuteWindow("route", `route:${request.organizationId}:${request.routeKey}`, budgets));
  windows.push(platformWindow(budgets));
  return windows;
}

/**
 * The caller's own windows, identity and API key (when a key calls): what every MCP request that
 * is not a route's tool call counts in (`initialize`, `tools/list`, utility tools), at no token cost.
 */
export function callerWindows(
  request: Pick<RateLimitedRequest, "organizationId" | "actorId" | "apiKeyId">,
  budgets: RateBudgets = RATE_LIMITS,
): RateWindow[] {
  // Keyed by organization too (DESIGN.md section 4): an app's id is its client id, the same in every
  // organization it is installed in, and one installation's traffic must not spend another's budget.
  const windows = [minuteWindow("identity", `actor:${request.organizationId}:${request.actorId}`, budgets)];
  // A key's requests are all its owner's (the identity, in the key's organization): a key window
  // with no smaller budget than the identity's cannot fill while the identity's has room, so it is
  // not counted apart; a call to its object would buy nothing.
  if (request.apiKeyId && budgets.api_key < budgets.identity)
    windows.push(minuteWindow("api_key", `key:${request.apiKeyId}`, budgets));
  return windows;
}

/**
 * The one window every authenticated request of the platform counts in, whoever sends it. Anonymous
 * traffic never spends it (DESIGN.md section 4): each class of it has a global window of its own
 * (public reads, MCP discovery, failed authentications), so no volume of requests without a valid
 * credential can refuse a signed-in tenant, nor junk of one class a caller of another.
 */
export function platformWindow(budgets: RateBudgets = RATE_LIMITS): RateWindow {
  return minuteWindow("platform", "platform", budgets);
}

/** The window of failed authentications per client (an IPv4 address or an IPv6 /64), checked before any database lookup. */
export function ipWindow(ip: string): RateWindow {
  return minuteWindow("ip", `ip:${clientAddressKey(ip)}`);
}

/** The window of all failed authentications, whoever sends them: what bounds their total once each client's window has room. */
export function failedAuthenticationWindow(budgets: RateBudgets = RATE_LIMITS): RateWindow {
  return minuteWindow("failed_authentication", "failed-authentications", budgets);
}

/**
 * The windows of a client calling operations that take no credential: its own (per IPv4 address or
 * IPv6 /64, counted apart from its failed authentications so that public reads never lock a client
 * out) and the one of all public reads.
 */
export function publicReadWindows(ip: string, budgets: RateBudgets = RATE_LIMITS): RateWindow[] {
  return [clientWindow("anon", ip, budgets), minuteWindow("public", "public", budgets)];
}

/**
 * The windows of an MCP request without an `Authorization` header, the 401 challenge that starts
 * OAuth discovery: the client's own (apart from its failed authentications) and the one of all such
 * challenges, so that neither junk of other classes nor a guessed token refuses a client its start.
 */
export function mcpDiscoveryWindows(ip: string, budgets: RateBudgets = RATE_LIMITS): RateWindow[] {
  return [clientWindow("mcp-discovery", ip, budgets), minuteWindow("mcp_discovery", "mcp-discovery", budgets)];
}

/**
 * The window of a valid unsubscribe token: its recipient's alone (`recipient:<org>:<address hash>`),
 * since the token is a credential of its own; no traffic of anyone else can refuse a recipient's one
 * click. The address is named by a hash, so no counter's name holds an e-mail address.
 */
export function recipientWindow(organizationId: string, addressHash: string, budgets: RateBudgets = RATE_LIMITS): RateWindow {
  return minuteWindow("recipient", `recipient:${organizationId}:${addressHash}`, budgets);
}

/** A per-client window (60 a minute, an IPv4 address or an IPv6 /64) on a counter of its own, `<counter>:<address>`. */
export function clientWindow(counter: string, ip: string, budgets: RateBudgets = RATE_LIMITS): RateWindow {
  return minuteWindow("ip", `${counter}:${clientAddressKey(ip)}`, budgets);
}

/**
 * The window of an inbound webhook before its connection is looked up and its signature checked:
 * the sending address's alone (with an organization's budget, since a provider sends all of its
 * customers' events from few addresses). It meets no window shared with other senders, so junk
 * posted elsewhere never refuses a signed delivery; the connection's window counts only deliveries
 * whose signature verified (`connectionWindow`), and a delivery its region refused counts as a
 * failed authentication.
 */
export function inboundWindow(ip: string, budgets: RateBudgets = RATE_LIMITS): RateWindow {
  return { scope: "ip", key: `inbound:${clientAddressKey(ip)}`, limit: budgets.organization, windowMs: MINUTE_MS };
}

/** A provider connection's window of verified deliveries. */
export function connectionWindow(connectionId: string, budgets: RateBudgets = RATE_LIMITS): RateWindow {
  return minuteWindow("connection", `conn:${connectionId}`, budgets);
}

/** Object ids by counter key: deriving one hashes the name, and the same keys recur on every request. */
const objectIds = new Map<string, DurableObjectId>();

function objectId(namespace: DurableObjectNamespace<RateLimiter>, key: string): DurableObjectId {
  let id = objectIds.get(key);
  if (!id) {
    id = namespace.idFromName(key);
    if (objectIds.size > 10_000) objectIds.clear();
    objectIds.set(key, id);
  }
  return id;
}

/** The leases this isolate holds, shared by every request it serves. */
const isolateLeases = new LeaseHolder();

/** Durable Object calls this isolate's admissions have made: the benchmark reports them per request. */
export const leaseCalls = (): number => isolateLeases.calls;

/** The counters' objects as the lease holder asks them. */
export function leaseCounters(namespace: DurableObjectNamespace<RateLimiter>): LeaseCounters {
  return (window, want, settlements, extending) =>
    namespace.get(objectId(namespace, window.key)).lease(window.limit, window.windowMs, want, settlements, extending);
}

/**
 * Admits one request through every window, from this isolate's leases while they have slots and
 * otherwise by asking the objects it lacks a slot of, in parallel (`LeaseHolder`). All or nothing:
 * a request refused by any window takes no slot of the others. If a call fails, nothing is taken
 * and the failure is rethrown. `defer` keeps the return of unused slots alive after the response.
 */
export function admit(
  namespace: DurableObjectNamespace<RateLimiter>,
  windows: readonly RateWindow[],
  defer?: RequestIo["defer"],
  holder: LeaseHolder = isolateLeases,
): Promise<Admittance> {
  const pause = () => new Promise<void>((resolve) => setTimeout(resolve, 1));
  return holder.admit(windows, { counters: leaseCounters(namespace), pause, defer });
}
