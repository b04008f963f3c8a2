import { ApiError, type Operation } from "@crm/contracts";
import {
  admit as admitToWindows,
  callerWindows,
  inboundWindow,
  publicReadWindows,
  RATE_LIMITS,
  type RateBudgets,
  type RateWindow,
  type RefusingWindow,
  type RequestIo,
  rateLimitHeaders,
  recipientWindow,
  scaledBudgets,
  windowsFor,
} from "@crm/rate-limiter";
import { gatewayConfig } from "../config";
import type { GatewayEnv } from "../env";
import { secretHash } from "../identity/identity-secret";
import { unsubscribingRecipient } from "../mail/unsubscribe";
import type { Actor } from "./actor";
import { clientIp, type GatewayCall, type OperationRequest } from "./operation-call";

/** The 429 of DESIGN.md section 4: exact message, `retryAfterMs`, `Retry-After` in whole seconds, the window in `details`. */
export function rateLimited(refusing: RefusingWindow): ApiError {
  const retryAfterSeconds = Math.ceil(refusing.retryAfterMs / 1000);
  const { scope, limit, windowMs } = refusing;
  const headers = {
    "retry-after": String(retryAfterSeconds),
    ...rateLimitHeaders({ scope, limit, windowMs, remaining: 0, resetSeconds: retryAfterSeconds }),
  };
  return new ApiError(
    "rate_limited",
    "Public API rate limit exceeded",
    { scope, limit, windowMs },
    headers,
    refusing.retryAfterMs,
  );
}

/**
 * The workspace a request names, for the workspace window: `workspaceId` in the query or at the
 * top of a JSON body. Requests that reach a workspace only through a resource id are limited by
 * the other windows.
 */
function namedWorkspace(request: OperationRequest): string | null {
  const fromQuery = request.url.searchParams.get("workspaceId");
  if (fromQuery) return fromQuery;
  if (!request.body || !/json/i.test(request.headers.get("content-type") ?? "")) return null;
  try {
    const body: unknown = JSON.parse(new TextDecoder().decode(request.body));
    const workspaceId = body && typeof body === "object" ? (body as { workspaceId?: unknown }).workspaceId : undefined;
    return typeof workspaceId === "string" ? workspaceId : null;
  } catch {
    return null; // not JSON after all: the handler's validation answers with 400
  }
}

/**
 * The workspace window a caller may be charged: only for a workspace its credential may reach. The
 * window is its organization's own count for that id (`ws:<org>:<workspace>`), so naming another
 * organization's workspace neither drains nor reveals that workspace's budget; a key limited to
 * some workspaces does not count against the others of its organization either.
 */
function chargedWorkspace(actor: Actor, request: OperationRequest): string | null {
  const workspaceId = namedWorkspace(request);
  if (workspaceId === null) return null;
  return actor.workspaceIds === null || actor.workspaceIds.includes(workspaceId) ? workspaceId : null;
}

/** Budgets of DESIGN.md section 4, unless `RATE_LIMIT_FACTOR` (benchmarks only) multiplies them. */
export const budgetsOf = (env: GatewayEnv) => {
  const factor = gatewayConfig(env).rateLimitFactor;
  if (factor === undefined) return RATE_LIMITS;
  if (scaled?.factor !== factor) scaled = { factor, budgets: scaledBudgets(factor) };
  return scaled.budgets;
};

/** The scaled budgets, built once per isolate rather than per request (the benchmark's own path). */
let scaled: { factor: number; budgets: ReturnType<typeof scaledBudgets> } | undefined;

/**
 * The windows a request without a bearer credential counts in. Anonymous traffic never spends a
 * tenant's budget or the platform window, and meets no window shared with traffic of another class
 * (DESIGN.md section 4): an unsubscribe request with a valid token its recipient's window only; any
 * other public (`none`) operation the client address's window and the one of all public reads; a
 * signed (`signature`) one only the sending address's, since its connection is looked up and its
 * signature verified before any window shared with others is charged (`forwardSignedDelivery`).
 */
async function windowsWithoutCredential(env: GatewayEnv, operation: Operation, request: OperationRequest): Promise<RateWindow[]> {
  const budgets = budgetsOf(env);
  if (operation.auth === "signature") return [inboundWindow(clientIp(request), budgets)];
  const recipient = await unsubscribingRecipient(env, operation, request.url);
  if (recipient) return [recipientWindow(recipient.organizationId, await secretHash(recipient.address), budgets)];
  return publicReadWindows(clientIp(request), budgets);
}

/**
 * An actor's windows for an operation and workspace, built once per actor (an API key's actor lives
 * as long as its cache entry) rather than on each of its requests; at most 256 kept per actor, since
 * the workspace is whatever the request names.
 */
function actorWindows(actor: Actor, operation: Operation, workspaceId: string | null, budgets: RateBudgets): RateWindow[] {
  let known = windowsByActor.get(actor);
  if (known?.budgets !== budgets) {
    known = { budgets, windows: new Map() };
    windowsByActor.set(actor, known);
  }
  const key = `${operation.operationId} ${workspaceId ?? ""}`;
  let windows = known.windows.get(key);
  if (!windows) {
    const limited = { ...caller(actor), workspaceId, routeKey: `${operation.method.toUpperCase()} ${operation.path}` };
    windows = windowsFor(limited, budgets);
    if (known.windows.size >= 256) known.windows.clear();
    known.windows.set(key, windows);
  }
  return windows;
}

const windowsByActor = new WeakMap<Actor, { budgets: RateBudgets; windows: Map<string, RateWindow[]> }>();

/** Who an actor is to the rate limiter: its organization, identity and API key. */
const caller = ({ organizationId, actor, credential }: Actor) => ({
  organizationId,
  actorId: actor.id,
  apiKeyId: credential.type === "api_key" ? credential.id : null,
});

/** Runs a task after a delay, kept alive past the response: how leases an idle isolate holds go back when they end. */
export const deferral =
  (call: GatewayCall): NonNullable<RequestIo["defer"]> =>
  (delayMs, task) =>
    call.executionCtx.waitUntil(scheduler.wait(delayMs).then(task));

/**
 * Whether the benchmark turned the limiter off for this request (scenario d: the pipeline without
 * it). Only a gateway started with `RATE_LIMITS_BENCH_SWITCH`, which `gatewayConfig` refuses
 * outside the local stack, listens to the header.
 */
const limiterSwitchedOff = (env: GatewayEnv, request: OperationRequest) =>
  gatewayConfig(env).rateLimitsBenchSwitch && request.headers.get("x-bench-rate-limits") === "off";

/**
 * Takes one slot of every window of the request (an authenticated caller's: organization, workspace,
 * identity, API key, route and platform), from the isolate's leases or by asking the
 * objects it lacks a slot of, in parallel. Refused: 429 and nothing consumed. Admitted: the
 * `RateLimit-Policy` and `RateLimit` headers of the tightest window, which is always one the
 * caller owns.
 */
export async function admit(
  call: GatewayCall,
  operation: Operation,
  request: OperationRequest,
  actor: Actor | null,
): Promise<Record<string, string>> {
  if (limiterSwitchedOff(call.env, request)) return {};
  const windows = actor
    ? actorWindows(actor, operation, chargedWorkspace(actor, request), budgetsOf(call.env))
    : await windowsWithoutCredential(call.env, operation, request);
  const admittance = await admitToWindows(call.env.RATE_LIMITER, windows, deferral(call));
  if (!admittance.allowed) throw rateLimited(admittance.refusing);
  return { ...rateLimitHeaders(admittance.tightest) };
}

/**
 * Admits an MCP request that runs no route (`initialize`, `tools/list`, `ping`, a utility tool):
 * one slot of the caller's identity and API key windows, no token cost (DESIGN.md section 4).
 * Refused: 429 and nothing consumed; admitted: the tightest window's `RateLimit` headers.
 */
export async function admitCaller(call: GatewayCall, actor: Actor): Promise<Record<string, string>> {
  const admittance = await admitToWindows(
    call.env.RATE_LIMITER,
    callerWindows(caller(actor), budgetsOf(call.env)),
    deferral(call),
  );
  if (!admittance.allowed) throw rateLimited(admittance.refusing);
  return { ...rateLimitHeaders(admittance.tightest) };
}
