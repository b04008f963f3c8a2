import { control, newId } from "@crm/db";
import { and, eq, isNull, lt } from "drizzle-orm";
import type { DrizzleD1Database } from "drizzle-orm/d1";
import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { identityMac, randomSecret, sameSecret, secretHash } from "./identity-secret";

const { consoleSessions } = control;

/**
 * Console sessions (DESIGN.md section 3): the browser holds a random token in the `__Host-session`
 * cookie (HttpOnly, Secure, SameSite=Lax, Path=/); the control D1 holds its SHA-256 only. A session
 * ends after 12 hours without a request, 7 days after sign-in whatever the activity, or at sign-out.
 */
export const sessionCookieName = "__Host-session";
export const sessionIdleMs = 12 * 60 * 60 * 1000;
export const sessionLifetimeMs = 7 * 24 * 60 * 60 * 1000;
/** `lastSeenAt` is written at most this often: a console page view must not cost a write each time. */
const touchEveryMs = 60_000;

export type ConsoleSession = Omit<typeof consoleSessions.$inferSelect, "tokenHash">;

/** Starts a session for a signed-in user; the token goes into the cookie and nowhere else. */
export async function createSession(
  db: DrizzleD1Database,
  user: { userId: string; organizationId: string | null },
  now = Date.now(),
): Promise<{ session: ConsoleSession; token: string }> {
  const token = randomSecret();
  const session = {
    id: newId("ses", now),
    userId: user.userId,
    organizationId: user.organizationId,
    createdAt: now,
    lastSeenAt: now,
    expiresAt: now + sessionLifetimeMs,
    revokedAt: null,
  };
  await db.insert(consoleSessions).values({ ...session, tokenHash: await secretHash(token) });
  return { session, token };
}

/** The live session a cookie token names, with its idle clock restarted; null when unknown, ended or revoked. */
export async function readSession(db: DrizzleD1Database, token: string, now = Date.now()): Promise<ConsoleSession | null> {
  const [row] = await db
    .select()
    .from(consoleSessions)
    .where(eq(consoleSessions.tokenHash, await secretHash(token)))
    .limit(1);
  if (!row || row.revokedAt !== null || row.expiresAt <= now || now - row.lastSeenAt >= sessionIdleMs) return null;
  const touch = now - row.lastSeenAt >= touchEveryMs;
  if (touch) {
    await db
      .update(consoleSessions)
      .set({ lastSeenAt: now })
      .where(and(eq(consoleSessions.id, row.id), lt(consoleSessions.lastSeenAt, now)));
  }
  const { tokenHash: _, ...session } = row;
  return { ...session, lastSeenAt: touch ? now : row.lastSeenAt };
}

/** Ends a session (sign-out); its cookie is refused from now on, whoever still holds it. */
export async function revokeSession(db: DrizzleD1Database, sessionId: string, now = Date.now()): Promise<void> {
  await db
    .update(consoleSessions)
    .set({ revokedAt: now })
    .where(and(eq(consoleSessions.id, sessionId), isNull(consoleSessions.revokedAt)));
}

/** Switches the organization the console works in; the caller checks the user's membership first. */
export async function selectSessionOrganization(db: DrizzleD1Database, sessionId: string, organizationId: string): Promise<void> {
  await db.update(consoleSessions).set({ organizationId }).where(eq(consoleSessions.id, sessionId));
}

/** The session token the browser sent, if any. */
export const sessionTokenOf = (c: Context): string | undefined => getCookie(c, sessionCookieName);

/** Hands the browser its session cookie, living as long as the session can. */
export function setSessionCookie(c: Context, token: string, session: Pick<ConsoleSession, "expiresAt">, now = Date.now()): void {
  setCookie(c, sessionCookieName, token, {
    httpOnly: true,
    secure: true,
    sameSite: "Lax",
    path: "/",
    maxAge: Math.max(0, Math.floor((session.expiresAt - now) / 1000)),
  });
}

export function clearSessionCookie(c: Context): void {
  deleteCookie(c, sessionCookieName, { httpOnly: true, secure: true, sameSite: "Lax", path: "/" });
}

/**
 * The CSRF token of every console form: an HMAC of the session id under a key derived from
 * `IDENTITY_SECRET`. It needs no storage, and a token of another session (or of none) is refused.
 */
export const csrfTokenFor = (secret: string, sessionId: string): Promise<string> => identityMac(secret, "csrf", sessionId);

export async function csrfTokenValid(secret: string, sessionId: string, token: string | null | undefined): Promise<boolean> {
  if (!token) return false;
  return sameSecret(await csrfTokenFor(secret, sessionId), token);
}
