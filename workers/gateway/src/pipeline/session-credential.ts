import { ApiError, type Region, scopes } from "@crm/contracts";
import type { DrizzleD1Database } from "drizzle-orm/d1";
import { parse } from "hono/utils/cookie";
import { gatewayConfig } from "../config";
import { type ConsoleSession, csrfTokenValid, readSession, sessionCookieName } from "../identity/sessions";
import type { Actor } from "./actor";
import { selectOrganization } from "./authorize";
import { invalidToken, sessionRefused } from "./credential-errors";
import type { GatewayCall, OperationRequest } from "./operation-call";
import { membershipRows } from "./organization-memberships";

/** Header that carries the console page's CSRF token on unsafe methods (`csrfTokenFor`). */
export const csrfHeader = "x-csrf-token";
const safeMethods = new Set(["GET", "HEAD"]);

export interface Membership {
  organizationId: string;
  name: string;
  region: Region;
  shard: number;
  role: "owner" | "admin" | "member";
}

/**
 * The organizations a user belongs to, oldest membership first. Read fresh: a session costs a read
 * per request anyway, and the console shows membership changes at once (OAuth tokens use the
 * per-isolate cache of `userOrganizations` instead).
 */
export async function membershipsOf(db: DrizzleD1Database, userId: string): Promise<Membership[]> {
  return (await membershipRows(db, userId)).map(({ id, ...membership }) => ({ organizationId: id, ...membership }));
}

/**
 * The actor of a console session: the user, in the organization `X-Service-Organization-Id` names
 * (or the one the session selected, or their only one: `selectOrganization`), with every scope (a
 * session is the user in person: their role decides, as DESIGN.md section 3 says) and no workspace
 * limit.
 */
export async function sessionActor(
  db: DrizzleD1Database,
  session: Pick<ConsoleSession, "id" | "userId" | "organizationId">,
  requestedOrganizationId: string | null,
): Promise<Actor> {
  const choices = await membershipRows(db, session.userId);
  if (choices.length === 0) throw new ApiError("forbidden", "You are not a member of any organization");
  const organization = selectOrganization(choices, requestedOrganizationId, session.organizationId);
  return {
    organizationId: organization.id,
    region: organization.region,
    shard: organization.shard,
    actor: { type: "user", id: session.userId },
    credential: { type: "session", id: session.id },
    scopes: [...scopes],
    workspaceIds: null,
    organizationRole: organization.role,
  };
}

/** The console session token of a request's `__Host-session` cookie, if it sends one. */
export function sessionTokenIn(request: OperationRequest): string | null {
  const cookie = request.headers.get("cookie");
  return cookie ? (parse(cookie, sessionCookieName)[sessionCookieName] ?? null) : null;
}

/**
 * On a `bearer` API route, a session cookie is a credential only on requests the console's own
 * pages make: the browser says so with `Sec-Fetch-Site: same-origin`, or (a browser without Fetch
 * Metadata) with an `Origin` of this very origin. A cross-site page, a link opened from elsewhere
 * (`none`) or a client that sends neither cannot borrow the browser's session. SameSite=Lax alone
 * would still let top-level GETs in.
 */
function assertSameOrigin(request: OperationRequest): void {
  const site = request.headers.get("sec-fetch-site");
  const origin = request.headers.get("origin");
  const fromHere = site === null ? origin === request.url.origin : site === "same-origin";
  if (!fromHere || (origin !== null && origin !== request.url.origin))
    throw sessionRefused("send it from the console's own pages");
}

/**
 * The live session of a `bearer` API route's cookie (no `Authorization` header sent), checked for
 * origin first and for its CSRF token on unsafe methods.
 */
export async function consoleSessionOf(
  db: DrizzleD1Database,
  identitySecret: string,
  token: string,
  request: OperationRequest,
  now = Date.now(),
): Promise<ConsoleSession> {
  assertSameOrigin(request);
  const session = await readSession(db, token, now);
  if (!session) throw invalidToken("an ended or unknown console session");
  if (!safeMethods.has(request.method) && !(await csrfTokenValid(identitySecret, session.id, request.headers.get(csrfHeader)))) {
    throw sessionRefused(`unsafe methods need the session's CSRF token in ${csrfHeader}`);
  }
  return session;
}

/**
 * Authenticates a `session` operation (the `/api-keys` routes): the console's session cookie, sent
 * by a page of the same origin, with the page's CSRF token on unsafe methods. A bearer credential is
 * refused outright: keys and tokens must not mint keys, however many scopes they hold.
 */
export async function authenticateSession(call: GatewayCall, request: OperationRequest): Promise<Actor> {
  if (request.headers.has("authorization")) {
    throw new ApiError(
      "forbidden",
      "API keys are managed from the console: sign in at /console. An API key or OAuth token cannot use this route.",
    );
  }
  const fetchSite = request.headers.get("sec-fetch-site");
  const origin = request.headers.get("origin");
  if (
    (fetchSite !== null && fetchSite !== "same-origin" && fetchSite !== "none") ||
    (origin !== null && origin !== request.url.origin)
  ) {
    throw new ApiError("forbidden", "This route answers the console's own pages only (same origin)");
  }
  const token = sessionTokenIn(request);
  const session = token ? await readSession(call.controlDb, token) : null;
  if (!session) throw new ApiError("unauthorized", "Sign in to the console: this route takes the console session only");
  if (
    !safeMethods.has(request.method) &&
    !(await csrfTokenValid(gatewayConfig(call.env).identitySecret, session.id, request.headers.get(csrfHeader)))
  ) {
    throw new ApiError("forbidden", `Send the console page's CSRF token in ${csrfHeader}`);
  }
  return sessionActor(call.controlDb, session, request.headers.get("x-service-organization-id"));
}
