import { env } from "cloudflare:test";
import { createApiKey, getApiKey, listApiKeys, maxApiKeysPerUser, replaceApiKey } from "@crm/contracts";
import { control, newId } from "@crm/db";
import { eq } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { describe, expect, it } from "vitest";
import { ConsoleBrowser, consoleUser, joinAnotherOrganization, origin } from "./console-browser";
import { bodyOf, errorOf } from "./crm";
import { call, eventually } from "./stack";

/** The `/api-keys` JSON routes: a console session of the same origin only, with the CSRF header on unsafe methods. */

interface Session {
  cookie: string;
  csrf: string;
}

async function session(options: { workspaceCount?: number } = {}) {
  const user = await consoleUser(options);
  const browser = new ConsoleBrowser();
  await browser.signIn(user.email, user.password);
  const { csrf } = await browser.page("/console/api-keys");
  return { user, browser, session: { cookie: `__Host-session=${browser.cookies.get("__Host-session")}`, csrf } };
}

/** A request as the console page's own script would send it. */
const asConsole = ({ cookie, csrf }: Session, extra: Record<string, string> = {}) => ({
  cookie,
  "x-csrf-token": csrf,
  origin,
  "sec-fetch-site": "same-origin",
  ...extra,
});

describe("/api-keys with a console session", () => {
  it("create (key shown once), list, get with activity, replace and revoke", async () => {
    const { user, session: s } = await session({ workspaceCount: 2 });
    const workspaceId = user.workspaceIds[0] as string;
    const created = await call("/api-keys", {
      method: "POST",
      headers: asConsole(s),
      json: { name: "CI", scopes: ["crm:records:read"], workspaceIds: [workspaceId], expiresInDays: 30 },
    });
    const { apiKey, key } = await bodyOf(created, createApiKey, 201);
    expect(key.startsWith(`crm_${apiKey.prefix}_`)).toBe(true);
    // The public columns only: never the secret's hash, the owner or the organization.
    expect(Object.keys(apiKey).sort()).toEqual(
      ["createdAt", "expiresAt", "id", "lastUsedAt", "name", "prefix", "scopes", "workspaceIds"].sort(),
    );
    expect(apiKey.workspaceIds).toEqual([workspaceId]);

    expect((await call("/workspaces", { key })).status).toBe(200);
    const list = await bodyOf(await call("/api-keys", { headers: asConsole(s) }), listApiKeys, 200);
    expect(list.data.map((entry) => entry.id)).toContain(apiKey.id);
    expect(JSON.stringify(list)).not.toContain(key);
    const detail = await eventually(
      async () => bodyOf(await call(`/api-keys/${apiKey.id}`, { headers: asConsole(s) }), getApiKey, 200),
      (body) => body.activity.length > 0,
    );
    expect(detail.activity[0]?.route).toBe("/workspaces");

    const replaced = await call(`/api-keys/${apiKey.id}/replace`, { method: "POST", headers: asConsole(s) });
    const replacement = await bodyOf(replaced, replaceApiKey, 201);
    expect(replacement.replacedId).toBe(apiKey.id);
    expect(replacement.apiKey.workspaceIds).toEqual([workspaceId]);
    expect(JSON.stringify(replacement)).not.toMatch(/secretHash|ownerId/);
    expect((await call("/workspaces", { key })).status).toBe(401);
    expect((await call("/workspaces", { key: replacement.key })).status).toBe(200);

    const revoked = await call(`/api-keys/${replacement.apiKey.id}`, { method: "DELETE", headers: asConsole(s) });
    expect(await revoked.json()).toEqual({ deletedId: replacement.apiKey.id });
    expect((await call("/workspaces", { key: replacement.key })).status).toBe(401);
    expect((await call(`/api-keys/${replacement.apiKey.id}`, { headers: asConsole(s) })).status).toBe(404);
  });

  it("page through the keys newest first with limit and cursor, as every list", async () => {
    const { session: s } = await session();
    const created: string[] = [];
    for (const name of ["One", "Two", "Three"]) {
      const response = await call("/api-keys", { method: "POST", headers: asConsole(s), json: { name, scopes: ["tasks:read"] } });
      created.unshift((await bodyOf(response, createApiKey, 201)).apiKey.id);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const response = await call(`/api-keys?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`, {
        headers: asConsole(s),
      });
      const page = await bodyOf(response, listApiKeys, 200);
      seen.push(...page.data.map((entry) => entry.id));
      cursor = page.pagination.cursor;
      pages++;
    } while (cursor);
    expect(seen.filter((id) => created.includes(id))).toEqual(created);
    expect(pages).toBeGreaterThanOrEqual(2);
    expect((await call("/api-keys?limit=0", { headers: asConsole(s) })).status).toBe(400);
    // No body with a JSON content type is `{}`, as everywhere.
    const revoked = await call(`/api-keys/${created[0]}`, {
      method: "DELETE",
      headers: asConsole(s, { "content-type": "application/json" }),
    });
    expect(revoked.status).toBe(200);
  });

  it("replace a key once when two replacements arrive at once: one new key, the other request 404", async () => {
    const { session: s } = await session();
    const created = await call("/api-keys", {
      method: "POST",
      headers: asConsole(s),
      json: { name: "Twice", scopes: ["tasks:read"] },
    });
    const { apiKey } = await bodyOf(created, createApiKey, 201);
    const answers = await Promise.all(
      [1, 2].map(() => call(`/api-keys/${apiKey.id}/replace`, { method: "POST", headers: asConsole(s) })),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 404]);
    const list = await bodyOf(await call("/api-keys", { headers: asConsole(s) }), listApiKeys, 200);
    expect(list.data.filter((entry) => entry.name === "Twice")).toHaveLength(1);
  });

  it("never let two creations at once go past the limit of live keys per user", async () => {
    const { user, session: s } = await session();
    const db = drizzle(env.CONTROL_DB);
    const owned = () => db.select().from(control.apiKeys).where(eq(control.apiKeys.ownerId, user.userId));
    const now = Date.now();
    const filler = Array.from({ length: maxApiKeysPerUser - (await owned()).length - 1 }, (_, i) => ({
      id: newId("key"),
      organizationId: user.organizationId,
      ownerType: "user" as const,
      ownerId: user.userId,
      name: `Filler ${i}`,
      prefix: crypto.randomUUID().replaceAll("-", ""),
      secretHash: "0".repeat(64),
      scopes: ["tasks:read"],
      createdAt: now,
    }));
    for (let i = 0; i < filler.length; i += 8) await db.insert(control.apiKeys).values(filler.slice(i, i + 8));
    const create = () =>
      call("/api-keys", { method: "POST", headers: asConsole(s), json: { name: "Last", scopes: ["tasks:read"] } });
    const answers = await Promise.all([create(), create()]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 409]);
    expect((await owned()).length).toBeLessThanOrEqual(maxApiKeysPerUser);
  });

  it("refuse API keys: 403 forbidden saying keys are managed from the console, even beside a session", async () => {
    const { user, session: s } = await session();
    for (const headers of [{ authorization: `Bearer ${user.key}` }, asConsole(s, { authorization: `Bearer ${user.key}` })]) {
      const response = await call("/api-keys", {
        method: "POST",
        headers,
        json: { name: "Minted", scopes: ["crm:records:read"] },
      });
      expect(response.status).toBe(403);
      const error = await errorOf(response);
      expect(error.code).toBe("forbidden");
      expect(error.message).toContain("managed from the console");
    }
    const rows = await drizzle(env.CONTROL_DB).select().from(control.apiKeys).where(eq(control.apiKeys.ownerId, user.userId));
    expect(rows.map((row) => row.name)).not.toContain("Minted");
  });

  it("refuse requests without a session (401), from another origin (403) or without the CSRF header (403)", async () => {
    const { session: s } = await session();
    const unauthenticated = await call("/api-keys");
    expect(unauthenticated.status).toBe(401);
    expect((await errorOf(unauthenticated)).code).toBe("unauthorized");
    expect((await call("/api-keys", { headers: { cookie: "__Host-session=forged" } })).status).toBe(401);
    expect((await call("/api-keys", { headers: asConsole(s, { origin: "https://evil.example" }) })).status).toBe(403);
    expect((await call("/api-keys", { headers: asConsole(s, { "sec-fetch-site": "cross-site" }) })).status).toBe(403);
    const { "x-csrf-token": _, ...withoutCsrf } = asConsole(s);
    const body = { name: "No CSRF", scopes: ["crm:records:read"] };
    expect((await call("/api-keys", { method: "POST", headers: withoutCsrf, json: body })).status).toBe(403);
    const other = await session();
    expect(
      (await call("/api-keys", { method: "POST", headers: asConsole(s, { "x-csrf-token": other.session.csrf }), json: body }))
        .status,
    ).toBe(403);
  });

  it("validate the settings: unknown scopes, expiries and properties → 400, another organization's workspace → 404", async () => {
    const { session: s } = await session();
    const foreign = await consoleUser();
    for (const json of [
      { name: "x", scopes: ["crm:everything"] },
      { name: "x", scopes: [] },
      { name: "x", scopes: ["tasks:read"], expiresInDays: 14 },
      { name: "x", scopes: ["tasks:read"], revokedAt: 1 },
      // Names read as they are: no bidirectional override, no zero-width space, no C1 control.
      { name: "CI\u202eyek", scopes: ["tasks:read"] },
      { name: "CI\u200b", scopes: ["tasks:read"] },
      { name: "CI\u0085", scopes: ["tasks:read"] },
    ]) {
      expect((await call("/api-keys", { method: "POST", headers: asConsole(s), json })).status, JSON.stringify(json)).toBe(400);
    }
    const response = await call("/api-keys", {
      method: "POST",
      headers: asConsole(s),
      json: { name: "x", scopes: ["tasks:read"], workspaceIds: [foreign.workspaceIds[0]] },
    });
    expect(response.status).toBe(404);
  });

  it("never reach another user's keys", async () => {
    const { session: s } = await session();
    const other = await session();
    const created = await call("/api-keys", {
      method: "POST",
      headers: asConsole(other.session),
      json: { name: "Theirs", scopes: ["tasks:read"] },
    });
    const { apiKey } = await bodyOf(created, createApiKey, 201);
    expect((await call(`/api-keys/${apiKey.id}`, { headers: asConsole(s) })).status).toBe(404);
    expect((await call(`/api-keys/${apiKey.id}`, { method: "DELETE", headers: asConsole(s) })).status).toBe(404);
    expect((await call(`/api-keys/${apiKey.id}/replace`, { method: "POST", headers: asConsole(s) })).status).toBe(404);
  });

  it("ask a user of several organizations without a selected one to choose (400 organization_required)", async () => {
    const { user, session: s } = await session();
    const other = await joinAnotherOrganization(user.userId);
    await drizzle(env.CONTROL_DB)
      .update(control.consoleSessions)
      .set({ organizationId: null })
      .where(eq(control.consoleSessions.userId, user.userId));
    const response = await call("/api-keys", { headers: asConsole(s) });
    expect(response.status).toBe(400);
    const error = (await response.json()) as { error: { code: string; details: { id: string }[] } };
    expect(error.error.code).toBe("organization_required");
    expect(error.error.details.map((organization) => organization.id).sort()).toEqual(
      [user.organizationId, other.organizationId].sort(),
    );
    const chosen = await call("/api-keys", { headers: asConsole(s, { "x-service-organization-id": other.organizationId }) });
    expect(chosen.status).toBe(200);
    const stranger = await consoleUser();
    expect(
      (await call("/api-keys", { headers: asConsole(s, { "x-service-organization-id": stranger.organizationId }) })).status,
    ).toBe(400);
  });
});
