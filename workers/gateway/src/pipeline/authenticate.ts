import { ApiError, type Surface } from "@crm/contracts";
import { admit, failedAuthenticationWindow, ipWindow, mcpDiscoveryWindows } from "@crm/rate-limiter";
import { gatewayConfig } from "../config";
import type { GatewayEnv } from "../env";
import { apiResource, mcpResources } from "../oauth/resources";
import { accessTokenActor, isJwt, verifyAccessToken } from "./access-token-credential";
import { kidOf, needsKeyLoad } from "./access-token-keys";
import type { Actor } from "./actor";
import { budgetsOf, deferral, rateLimited } from "./admit";
import { authenticateApiKey, isApiKey, needsLookup } from "./api-key-credential";
import { organizationHeader } from "./authorize";
import { invalidToken, unauthorized } from "./credential-errors";
import { clientIp, type GatewayCall, type OperationRequest } from "./operation-call";
import { revokedGrantsDue } from "./revoked-grants";
import { consoleSessionOf, sessionActor, sessionTokenIn } from "./session-credential";

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
 * missing, malformed, unknown, expired or revoked credentials count, and so do refused SSO pushes
 * (`internal-routes.ts`). Once it is full, the client's requests are refused with 429 before any
 * database lookup. Valid credentials never count. A failure is anonymous traffic, so it also counts
 * in the window of all failed authentications, never in the platform's nor in one that public reads,
 * MCP discovery or signed deliveries meet (DESIGN.md section 4).
 */
export function failedAuthentications(env: GatewayEnv, ip: string, defer?: ReturnType<typeof deferral>) {
  const window = ipWindow(ip);
  // Asked only when needed: a cached credential that passes never reaches the window's object.
  const counter = () => env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(window.key));
  const refuseWhen = (decision: { allowed: boolean; retryAfterMs: number }) => {
    if (!decision.allowed) throw rateLimited({ ...window, retryAfterMs: decision.retryAfterMs });
  };
  return {
    /** Refuses (429) if the client has no failures left, consuming nothing. */
    guard: async () => refuseWhen(await counter().peek(window.limit, window.windowMs)),
    /** Counts one failed authentication; 429 if it does not fit. */
    async count() {
      refuseWhen(await counter().take(window.limit, window.windowMs));
      const all = await admit(env.RATE_LIMITER, [failedAuthenticationWindow(budgetsOf(env))], defer);
      if (!all.allowed) throw rateLimited(all.refusing);
    },
    /** Runs `check`, counting it as a failed authentication if it refuses the credential (401). */
    async counting<T>(check: () => Promise<T>): Promise<T> {
      try {
        return await check();
      } catch (error) {
        if (error instanceof ApiError && error.status === 401) await this.count();
        throw error;
      }
    },
  };
}

/**
 * The 401 challenge of an MCP request without an `Authorization` header, which starts OAuth
 * discovery (RFC 9728): not a failed authentication, since nothing was guessed, but MCP discovery,
 * counted in the client's and the global windows of its own (DESIGN.md section 4); 429 once either is full.
 */
async function discoveryChallenge(call: GatewayCall, request: OperationRequest): Promise<never> {
  const windows = mcpDiscoveryWindows(clientIp(request), budgetsOf(call.env));
  const admittance = await admit(call.env.RATE_LIMITER, windows, deferral(call));
  if (!admittance.allowed) throw rateLimited(admittance.refusing);
  throw unauthorized();
}

/**
 * Authenticates the credential of a request (the `bearer` operations of the catalogue). Three kinds
 * resolve to the same `Actor`, so the steps after this one do not care which it was:
 *
 * - an API key (`crm_…`), looked up and cached per isolate (`api-key-credential.ts`);
 * - an OAuth access token (a JWT), verified against the published keys without a storage read on
 *   the hot path, for this API's audience (`access-token-credential.ts`);
 * - without an `Authorization` header, the console session of the `__Host-session` cookie, from the
 *   console's own pages only (`session-credential.ts`); REST only, MCP clients hold bearer tokens.
 *
 * A user credential not bound to one organization acts in the one the request selects
 * (`selectOrganization`). Every 401 counts against the client's window of failed authentications,
 * and a credential that costs a read is refused (429) first once that window is full; but for MCP's
 * discovery challenge (no `Authorization` header), which has windows of its own.
 */
export async function authenticate(
  call: GatewayCall,
  request: OperationRequest,
  /** Each surface is a protected resource of its own (RFC 8707): the REST API (`<origin>/api/v1`) or the MCP endpoint (`<origin>/mcp`). */
  surface: Surface = "api",
  now = Date.now(),
): Promise<Actor> {
  const authorization = request.headers.get("authorization");
  if (authorization === null && surface === "mcp") return discoveryChallenge(call, request);
  const failures = failedAuthentications(call.env, clientIp(request), deferral(call));
  return failures.counting(async () => {
    const session = authorization === null && surface === "api" ? sessionTokenIn(request) : null;
    if (session !== null) {
      await failures.guard();
      const consoleSession = await consoleSessionOf(
        call.controlDb,
        gatewayConfig(call.env).identitySecret,
        session,
        request,
        now,
      );
      return await sessionActor(call.controlDb, consoleSession, request.headers.get(organizationHeader));
    }
    const token = bearerToken(authorization);
    if (isApiKey(token)) {
      // A key this isolate has not seen lately costs a database read: refuse a client out of failures first.
      if (needsLookup(token, now)) await failures.guard();
      return await authenticateApiKey(call.controlDb, token, now);
    }
    const kid = isJwt(token) ? kidOf(token) : null;
    if (kid === null) throw invalidToken("malformed or unknown");
    if (needsKeyLoad(kid, now) || revokedGrantsDue(now)) await failures.guard();
    // Each surface accepts tokens for its own resources only (RFC 8707 `resource`): REST
    // `<origin>/api/v1`, MCP `<origin>/mcp` or `<origin>/api/v1/mcp` (the same endpoint under two
    // URLs). A token obtained for one surface is not spent at the other, as the MCP authorization
    // spec requires of servers (no token passthrough).
    const audience = surface === "api" ? [apiResource(request.url.origin)] : mcpResources(request.url.origin);
    const expected = { issuer: request.url.origin, audience };
    const claims = await verifyAccessToken(call.controlDb, token, kid, expected, now);
    return await accessTokenActor(call.controlDb, claims, request, now);
  });
}
