import { type ActorContext, ApiError } from "@crm/contracts";
import { ipWindow } from "@crm/rate-limiter";
import type { GatewayEnv } from "../env";
import { rateLimited } from "./admit";
import { authenticateApiKey, isApiKey, needsLookup } from "./api-key-credential";
import { invalidToken, unauthorized } from "./credential-errors";
import { clientIp, type GatewayCall, type OperationRequest } from "./operation-call";

/**
 * Who is calling, as authentication established it: the actor context the regions receive, less
 * what names one request (operation, method, path, target, request id, time).
 */
export type Actor = Omit<ActorContext, "requestId" | "operationId" | "method" | "path" | "target" | "issuedAt">;

const bearerPattern = /^bearer ([^\s]+)$/i;

/** The token of an `Authorization: Bearer <token>` header (keyword case-insensitive, one space). */
export function bearerToken(header: string | null): string {
  if (!header) throw unauthorized();
  const match = bearerPattern.exec(header);
  if (!match?.[1]) {
    if (/^bearer\b/i.test(header)) throw invalidToken("malformed");
    throw unauthorized();
  }
  return match[1];
}

/**
 * The client's window of failed authentications (60 a minute; an IPv4 address or an IPv6 /64):
 * missing, malformed, unknown, expired or revoked credentials count. Once it is full, the client's
 * requests are refused with 429 before any database lookup. Valid credentials never count.
 */
function failedAuthentications(env: GatewayEnv, ip: string) {
  const window = ipWindow(ip);
  const counter = env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(window.key));
  const refuseWhen = (decision: { allowed: boolean; retryAfterMs: number }) => {
    if (!decision.allowed) throw rateLimited({ ...window, retryAfterMs: decision.retryAfterMs });
  };
  return {
    /** Refuses (429) if the client has no failures left, consuming nothing. */
    guard: async () => refuseWhen(await counter.peek(window.limit, window.windowMs)),
    /** Counts one failed authentication; 429 if it does not fit. */
    count: async () => refuseWhen(await counter.take(window.limit, window.windowMs)),
  };
}

/**
 * Authenticates the bearer credential of a request (the `bearer` operations of the catalogue).
 * Every kind of bearer token resolves to the same `Actor`, so the steps after this one do not
 * care which it was. Today that is an API key; issue 12 adds OAuth access tokens (JWTs verified
 * against the JWKS without a storage read) as a second branch below. Console pages hold a session
 * instead of a token: they establish their `Actor` from the session cookie and compose the other
 * steps themselves.
 */
export async function authenticate(call: GatewayCall, request: OperationRequest): Promise<Actor> {
  const failures = failedAuthentications(call.env, clientIp(request));
  try {
    const token = bearerToken(request.headers.get("authorization"));
    if (isApiKey(token)) {
      // A key this isolate has not seen lately costs a database read: refuse a client out of failures first.
      if (needsLookup(token)) await failures.guard();
      return await authenticateApiKey(call.controlDb, token);
    }
    throw invalidToken("malformed or unknown");
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) await failures.count();
    throw error;
  }
}
