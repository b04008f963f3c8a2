import { ApiError, type Region, scopes } from "@crm/contracts";
import { control } from "@crm/db";
import { asc, eq } from "drizzle-orm";
import type { DrizzleD1Database } from "drizzle-orm/d1";
import { parse } from "hono/utils/cookie";
import { type ConsoleSession, csrfTokenValid, readSession, sessionCookieName } from "../identity/sessions";
import type { Actor } from "./authenticate";
import type { GatewayCall, OperationRequest } from "./operation-call";

/** Header that carries the console page's CSRF token on unsafe methods of session operations. */
export const csrfHeader = "x-csrf-token";
const safeMethods = new Set(["GET", "HEAD"]);

export interface Membership {
  organizationId: string;
  name: string;
  region: Region;
  role: "owner" | "admin" | "member";
}

/** The organizations a user belongs to, oldest membership first. */
export async function membershipsOf(db: DrizzleD1Database, userId: string): Promise<Membership[]> {
  const { organizationMembers, organizations } = control;
  return db
    .select({
      organizationId: organizations.id,
      name: organizations.name,
      region: organizations.region,
      role: organizationMembers.role,
    })
    .from(organizationMembers)
    .innerJoin(organizations, eq(organizations.id, organizationMembers.organizationId))
    .where(eq(organizationMembers.userId, userId))
    .orderBy(asc(organizationMembers.createdAt), asc(organizations.id));
}

/**
 * The actor of a console session: the user, in the organization the session selected (or the one
 * `X-Service-Organization-Id` names, or their only one), with every scope (a session is the user
 * in person: their role decides, as DESIGN.md section 3 says) and no workspace limit.
 */
export async function sessionActor(
  db: DrizzleD1Database,
  session: Pick<ConsoleSession, "id" | "userId" | "organizationId">,
  requestedOrganizationId: string | null,
): Promise<Actor> {
  const memberships = await membershipsOf(db, session.userId);
  if (memberships.length === 0) throw new ApiError("forbidden", "You are not a member of any organization");
  const wanted = requestedOrganizationId ?? session.organizationId;
  let membership = wanted === null ? undefined : memberships.find((candidate) => candidate.organizationId === wanted);
  if (wanted !== null && !membership)
    throw new ApiError("organization_mismatch", "X-Service-Organization-Id names an organization you are not a member of");
  if (!membership && memberships.length === 1) membership = memberships[0];
  if (!membership) {
    throw new ApiError(
      "organization_required",
      "You are a member of several organizations: choose one in the console or with X-Service-Organization-Id",
      memberships.map(({ organizationId, name }) => ({ id: organizationId, name })),
    );
  }
  return {
    organizationId: membership.organizationId,
    region: membership.region,
    actor: { type: "user", id: session.userId },
    credential: { type: "session", id: session.id },
    scopes: [...scopes],
    workspaceIds: null,
    organizationRole: membership.role,
  };
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
  const token = parse(request.headers.get("cookie") ?? "", sessionCookieName)[sessionCookieName];
  const session = token ? await readSession(call.controlDb, token) : null;
  if (!session) throw new ApiError("unauthorized", "Sign in to the console: this route takes the console session only");
  if (
    !safeMethods.has(request.method) &&
    !(await csrfTokenValid(call.env.IDENTITY_SECRET, session.id, request.headers.get(csrfHeader)))
  ) {
    throw new ApiError("forbidden", `Send the console page's CSRF token in ${csrfHeader}`);
  }
  return sessionActor(call.controlDb, session, request.headers.get("x-service-organization-id"));
}
