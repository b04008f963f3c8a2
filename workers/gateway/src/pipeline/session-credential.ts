import { scopes } from "@crm/contracts";
import type { DrizzleD1Database } from "drizzle-orm/d1";
import { parse } from "hono/utils/cookie";
import { type ConsoleSession, csrfTokenValid, readSession, sessionCookieName } from "../identity/sessions";
import type { Actor } from "./authenticate";
import { selectOrganization } from "./authorize";
import { invalidToken, sessionRefused } from "./credential-errors";
import type { OperationRequest } from "./operation-call";
import { userOrganizations } from "./organization-memberships";

/** The header console pages send the session's CSRF token in on unsafe methods (`csrfTokenFor`). */
export const csrfHeader = "x-csrf-token";

const safeMethods = new Set(["GET", "HEAD", "OPTIONS"]);

/** The console session token of a request's `__Host-session` cookie, if it sends one. */
export function sessionTokenIn(request: OperationRequest): string | null {
  const cookie = request.headers.get("cookie");
  return cookie ? (parse(cookie, sessionCookieName)[sessionCookieName] ?? null) : null;
}

/**
 * A session cookie is a credential only on requests the console's own pages make: the browser says
 * so with `Sec-Fetch-Site: same-origin`, or (a browser without Fetch Metadata) with an `Origin` of
 * this very origin. A cross-site page, a link opened from elsewhere (`none`) or a client that sends
 * neither cannot borrow the browser's session. SameSite=Lax alone would still let top-level GETs in.
 */
function assertSameOrigin(request: OperationRequest): void {
  const site = request.headers.get("sec-fetch-site");
  const origin = request.headers.get("origin");
  const fromHere = site === null ? origin === request.url.origin : site === "same-origin";
  if (!fromHere || (origin !== null && origin !== request.url.origin))
    throw sessionRefused("send it from the console's own pages");
}

/** The live session of a request's cookie, checked for origin first and for its CSRF token on unsafe methods. */
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
 * The actor of a console session: its user with every scope (the console acts for the person
 * signed in; their role still limits what they do), in the organization requested
 * (`X-Service-Organization-Id`), else the one chosen in the console, else their only one.
 */
export async function sessionActor(
  db: DrizzleD1Database,
  session: Pick<ConsoleSession, "id" | "userId" | "organizationId">,
  requestedOrganizationId: string | null,
  now = Date.now(),
): Promise<Actor> {
  const choices = await userOrganizations(db, session.userId, now);
  if (choices.length === 0) throw invalidToken("revoked");
  const organization = selectOrganization(choices, requestedOrganizationId, session.organizationId);
  return {
    organizationId: organization.id,
    region: organization.region,
    actor: { type: "user", id: session.userId },
    credential: { type: "session", id: session.id },
    scopes: [...scopes],
    workspaceIds: null,
    organizationRole: organization.role,
  };
}
