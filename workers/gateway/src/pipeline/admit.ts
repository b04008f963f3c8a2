import { ApiError, type Operation } from "@crm/contracts";
import {
  admit,
  ipWindow,
  RATE_LIMITS,
  type RefusingWindow,
  rateLimitHeaders,
  scaledBudgets,
  windowsFor,
} from "@crm/rate-limiter";
import type { Context, MiddlewareHandler } from "hono";
import type { GatewayAppEnv, GatewayEnv } from "./env";

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
 * The client IP's window (60 a minute) counts failed authentications: missing, malformed, unknown,
 * expired or revoked credentials. Once it is full, the IP's requests are refused with 429 before
 * any database lookup. Valid credentials never count against it.
 */
export function clientIpWindow(env: GatewayEnv, ip: string) {
  const window = ipWindow(ip);
  const counter = env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(window.key));
  const refuseWhen = (decision: { allowed: boolean; retryAfterMs: number }) => {
    if (!decision.allowed) throw rateLimited({ ...window, retryAfterMs: decision.retryAfterMs });
  };
  return {
    /** Refuses (429) if the IP has no failures left, consuming nothing. */
    guard: async () => refuseWhen(await counter.peek(window.limit, window.windowMs)),
    /** Counts one failed authentication; 429 if it does not fit. */
    countFailure: async () => refuseWhen(await counter.take(window.limit, window.windowMs)),
  };
}

/**
 * The workspace a request names, for the workspace window: `workspaceId` in the query or at the
 * top of a JSON body. Requests that reach a workspace only through a resource id are limited by
 * the other windows.
 */
async function namedWorkspace(c: Context<GatewayAppEnv>): Promise<string | null> {
  const fromQuery = c.req.query("workspaceId");
  if (fromQuery) return fromQuery;
  if (c.req.method === "GET" || !/json/i.test(c.req.header("content-type") ?? "")) return null;
  try {
    // The raw bytes, which Hono keeps for the forwarding step; parsing them here changes nothing sent on.
    const body: unknown = JSON.parse(new TextDecoder().decode(await c.req.arrayBuffer()));
    const workspaceId = body && typeof body === "object" ? (body as { workspaceId?: unknown }).workspaceId : undefined;
    return typeof workspaceId === "string" ? workspaceId : null;
  } catch {
    return null; // not JSON after all: the regional validator answers with 400
  }
}

/** Budgets of DESIGN.md section 4, unless `RATE_LIMIT_FACTOR` (benchmarks only) multiplies them. */
const budgetsOf = (env: GatewayEnv) => (env.RATE_LIMIT_FACTOR ? scaledBudgets(Number(env.RATE_LIMIT_FACTOR)) : RATE_LIMITS);

/**
 * The six windows of an authenticated request (organization, workspace, identity, API key, route,
 * platform), asked in parallel. Refused: 429 and nothing consumed. Admitted: the tightest window
 * goes out in the `RateLimit-Policy` and `RateLimit` headers.
 */
export const limitRate =
  (operation: Operation): MiddlewareHandler<GatewayAppEnv> =>
  async (c, next) => {
    const { actor } = c.var;
    const admittance = await admit(
      c.env.RATE_LIMITER,
      windowsFor(
        {
          organizationId: actor.organizationId,
          workspaceId: await namedWorkspace(c),
          actorId: actor.actor.id,
          apiKeyId: actor.credential.type === "api_key" ? actor.credential.id : null,
          routeKey: `${operation.method.toUpperCase()} ${operation.path}`,
        },
        budgetsOf(c.env),
      ),
    );
    if (!admittance.allowed) throw rateLimited(admittance.refusing);
    await next();
    for (const [name, value] of Object.entries(rateLimitHeaders(admittance.tightest))) c.header(name, value);
  };
