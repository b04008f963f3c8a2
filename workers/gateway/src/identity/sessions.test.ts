import { env } from "cloudflare:test";
import { control } from "@crm/db";
import { eq } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { createOrganization } from "../../../../test/fixtures";
import { secretHash } from "./identity-secret";
import {
  clearSessionCookie,
  createSession,
  csrfTokenFor,
  csrfTokenValid,
  readSession,
  revokeSession,
  sessionIdleMs,
  sessionLifetimeMs,
  sessionTokenOf,
  setSessionCookie,
} from "./sessions";

const db = () => drizzle(env.CONTROL_DB);
const hour = 60 * 60 * 1000;

async function newSession(now = Date.now()) {
  const { organizationId, userId } = await createOrganization();
  return { ...(await createSession(db(), { userId, organizationId }, now)), userId, organizationId };
}

describe("console sessions", () => {
  it("store only the hash of the cookie token, under a ses_ id", async () => {
    const { session, token } = await newSession();
    expect(session.id).toMatch(/^ses_/);
    const [row] = await db().select().from(control.consoleSessions).where(eq(control.consoleSessions.id, session.id));
    expect(row?.tokenHash).toBe(await secretHash(token));
    expect(JSON.stringify(row)).not.toContain(token);
  });

  it("read back the session a token names, and nothing for an unknown token", async () => {
    const { session, token, userId, organizationId } = await newSession();
    expect(await readSession(db(), token)).toMatchObject({ id: session.id, userId, organizationId });
    expect(await readSession(db(), `${token}x`)).toBeNull();
  });

  it("end after 12 hours without a request, and stay alive while used", async () => {
    const start = Date.now();
    const { token } = await newSession(start);
    expect(await readSession(db(), token, start + sessionIdleMs - 1)).not.toBeNull();
    // That read restarted the idle clock: 12 hours after it, not after sign-in.
    const touched = start + sessionIdleMs - 1;
    expect(await readSession(db(), token, touched + sessionIdleMs - 1)).not.toBeNull();
    expect(await readSession(db(), token, touched + 2 * sessionIdleMs)).toBeNull();
  });

  it("end 7 days after sign-in however active", async () => {
    const start = Date.now();
    const { token } = await newSession(start);
    for (let at = start + 11 * hour; at < start + sessionLifetimeMs; at += 11 * hour) {
      expect(await readSession(db(), token, at)).not.toBeNull();
    }
    expect(await readSession(db(), token, start + sessionLifetimeMs)).toBeNull();
  });

  it("are refused once revoked (sign-out)", async () => {
    const { session, token } = await newSession();
    await revokeSession(db(), session.id);
    expect(await readSession(db(), token)).toBeNull();
  });

  it("CSRF tokens verify for their own session only", async () => {
    const secret = env.IDENTITY_SECRET;
    const [first, second] = [await newSession(), await newSession()];
    const token = await csrfTokenFor(secret, first.session.id);
    expect(await csrfTokenValid(secret, first.session.id, token)).toBe(true);
    expect(await csrfTokenValid(secret, second.session.id, token)).toBe(false);
    expect(await csrfTokenValid(secret, first.session.id, undefined)).toBe(false);
    expect(await csrfTokenValid(secret, first.session.id, "")).toBe(false);
    expect(await csrfTokenValid("another-secret", first.session.id, token)).toBe(false);
  });

  it("travel in a __Host-session cookie: HttpOnly, Secure, SameSite=Lax, Path=/", async () => {
    const now = Date.now();
    const app = new Hono()
      .post("/in", (c) => {
        setSessionCookie(c, "the-token", { expiresAt: now + sessionLifetimeMs }, now);
        return c.body(null, 204);
      })
      .post("/out", (c) => {
        clearSessionCookie(c);
        return c.body(null, 204);
      })
      .get("/who", (c) => c.text(sessionTokenOf(c) ?? "nobody"));
    const cookie = (await app.request("/in", { method: "POST" })).headers.get("set-cookie") ?? "";
    expect(cookie).toMatch(/^__Host-session=the-token;/);
    expect(cookie).toContain("Max-Age=604800");
    expect(cookie).toContain("Path=/");
    expect(cookie).toContain("HttpOnly");
    expect(cookie).toContain("Secure");
    expect(cookie).toContain("SameSite=Lax");
    expect(cookie).not.toContain("Domain");
    const cleared = (await app.request("/out", { method: "POST" })).headers.get("set-cookie") ?? "";
    expect(cleared).toMatch(/^__Host-session=;.*Max-Age=0/);
    expect(await (await app.request("/who", { headers: { cookie: "__Host-session=abc" } })).text()).toBe("abc");
  });
});
