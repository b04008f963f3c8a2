import { control } from "@crm/db";
import { eq } from "drizzle-orm";
import type { Context, MiddlewareHandler } from "hono";
import { gatewayConfig } from "../config";
import { clearSessionCookie, csrfTokenFor, csrfTokenValid, readSession, sessionTokenOf } from "../identity/sessions";
import { membershipsOf, sessionActor } from "../pipeline/session-credential";
import type { ConsoleEnv } from "./console-env";
import { ConsoleProblem, readForm } from "./forms";

/**
 * Every console page but sign-in: a live session, or back to sign-in (a tampered, expired or
 * revoked cookie is cleared on the way). The session's actor is the user in the selected
 * organization. A POST must carry this session's CSRF token, checked before its handler runs.
 */
export const requireSession: MiddlewareHandler<ConsoleEnv> = async (c, next) => {
  const token = sessionTokenOf(c);
  const db = c.var.controlDb;
  const session = token ? await readSession(db, token) : null;
  if (!session) {
    if (token) clearSessionCookie(c);
    const url = new URL(c.req.url);
    const returnTo = c.req.method === "GET" ? `${url.pathname}${url.search}` : "/console/api-keys";
    return c.redirect(`/console/sign-in?return_to=${encodeURIComponent(returnTo)}`, 303);
  }
  const csrf = await csrfTokenFor(gatewayConfig(c.env).identitySecret, session.id);
  if (c.req.method !== "GET" && c.req.method !== "HEAD") {
    const form = await readForm(c);
    if (!(await csrfTokenValid(gatewayConfig(c.env).identitySecret, session.id, form.get("csrf")))) {
      throw new ConsoleProblem(
        403,
        "Form expired",
        "This form has expired or belongs to another session. Nothing was changed: go back, reload the page and try again.",
      );
    }
  }
  const memberships = await membershipsOf(db, session.userId);
  const selected = memberships.find((membership) => membership.organizationId === session.organizationId) ?? memberships[0];
  if (!selected) throw new ConsoleProblem(403, "No organization", "Your account is not a member of any organization.");
  const [user] = await db
    .select({ id: control.users.id, name: control.users.name, email: control.users.email })
    .from(control.users)
    .where(eq(control.users.id, session.userId));
  if (!user) throw new ConsoleProblem(403, "No account", "Your account no longer exists.");
  c.set("session", session);
  c.set("actor", await sessionActor(db, { ...session, organizationId: selected.organizationId }, null));
  c.set("signedIn", { user, memberships, organizationId: selected.organizationId, csrf, path: new URL(c.req.url).pathname });
  await next();
};

/** The signed-in user as the owner of API keys in the selected organization. */
export const ownerOf = (c: Context<ConsoleEnv>) => ({ organizationId: c.var.actor.organizationId, userId: c.var.actor.actor.id });
