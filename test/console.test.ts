import { env } from "cloudflare:test";
import { control, newId } from "@crm/db";
import { eq } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { describe, expect, it } from "vitest";
import {
  ConsoleBrowser,
  consoleUser,
  createKeyOnPage,
  joinAnotherOrganization,
  postAndFollow,
  signedInUser,
  text,
} from "./console-browser";
import { call, eventually } from "./stack";

const db = () => drizzle(env.CONTROL_DB);
const keysOf = (userId: string) => db().select().from(control.apiKeys).where(eq(control.apiKeys.ownerId, userId));

describe("console sign-in", () => {
  it("signs in with e-mail and password, sets the __Host-session cookie and lands on the API keys page", async () => {
    const user = await consoleUser();
    const browser = new ConsoleBrowser();
    const response = await browser.signIn(user.email.toUpperCase(), user.password);
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe("/console/api-keys");
    const cookie = response.headers.getSetCookie().find((header) => header.startsWith("__Host-session="));
    expect(cookie).toMatch(/; Path=\//);
    expect(cookie).toMatch(/; HttpOnly/);
    expect(cookie).toMatch(/; Secure/);
    expect(cookie).toMatch(/; SameSite=Lax/);
    const { response: page, html } = await browser.page("/console/api-keys");
    expect(page.status).toBe(200);
    expect(page.headers.get("cache-control")).toBe("no-store");
    expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(text(html)).toContain("Create a key");
  });

  it("answers a wrong password and an unknown e-mail alike, in comparable time", async () => {
    const user = await consoleUser();
    const attempt = async (email: string) => {
      const started = performance.now();
      const response = await new ConsoleBrowser().signIn(email, "not the password");
      return {
        status: response.status,
        body: (await response.text()).replace(/value="[^"]*"/g, ""),
        ms: performance.now() - started,
      };
    };
    // Three of each (fewer than the account's 5 failures); the fastest of each is the least disturbed by load.
    const wrong = [await attempt(user.email), await attempt(user.email), await attempt(user.email)];
    const unknown = await Promise.all([1, 2, 3].map(() => attempt(`nobody-${crypto.randomUUID()}@test.example`)));
    for (const answer of [...wrong, ...unknown]) {
      expect(answer.status).toBe(401);
      expect(answer.body).toBe(wrong[0]?.body);
    }
    expect(text(wrong[0]?.body ?? "")).toContain("Wrong e-mail or password.");
    // Without the stand-in derivation an unknown e-mail answers in a fraction of the time.
    const fastest = (answers: { ms: number }[]) => Math.min(...answers.map((answer) => answer.ms));
    expect(fastest(unknown)).toBeGreaterThan(fastest(wrong) / 3);
  });

  it("locks an account after 5 failed sign-ins, from any address, even with the right password", async () => {
    const user = await consoleUser();
    for (let attempt = 0; attempt < 5; attempt++) {
      expect((await new ConsoleBrowser().signIn(user.email, "wrong")).status).toBe(401);
    }
    const locked = await new ConsoleBrowser().signIn(user.email, user.password);
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(text(await locked.text())).toContain("Too many failed sign-ins");
  });

  it("locks a client address after 20 failed sign-ins, whichever accounts they named", async () => {
    const user = await consoleUser();
    const browser = new ConsoleBrowser();
    for (let attempt = 0; attempt < 20; attempt++) {
      expect((await browser.signIn(`guess-${attempt}@test.example`, "wrong")).status).toBe(401);
    }
    expect((await browser.signIn(user.email, user.password)).status).toBe(429);
    expect((await new ConsoleBrowser().signIn(user.email, user.password)).status).toBe(303);
  });

  it("checks at most 5 of 20 parallel sign-ins against one account: the slot is taken before the password", async () => {
    const user = await consoleUser();
    const answers = await Promise.all(Array.from({ length: 20 }, () => new ConsoleBrowser().signIn(user.email, "wrong")));
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 401)).toHaveLength(5);
    expect(statuses.filter((status) => status === 429)).toHaveLength(15);
  });

  it("checks at most 20 of 30 parallel sign-ins from one address", async () => {
    const browsers = Array.from({ length: 30 }, () => new ConsoleBrowser("198.51.100.77"));
    const answers = await Promise.all(browsers.map((browser, index) => browser.signIn(`guess-${index}@test.example`, "wrong")));
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 401)).toHaveLength(20);
    expect(statuses.filter((status) => status === 429)).toHaveLength(10);
  });

  it("gives the slot back when the password was right: right sign-ins never lock an account", async () => {
    const user = await consoleUser();
    const browser = new ConsoleBrowser();
    for (let attempt = 0; attempt < 6; attempt++) expect((await browser.signIn(user.email, user.password)).status).toBe(303);
    for (let attempt = 0; attempt < 4; attempt++) expect((await browser.signIn(user.email, "wrong")).status).toBe(401);
    expect((await browser.signIn(user.email, user.password)).status).toBe(303);
  });

  it("refuses a sign-in form without its CSRF token", async () => {
    const user = await consoleUser();
    const browser = new ConsoleBrowser();
    await browser.page("/console/sign-in");
    const response = await browser.post("/console/sign-in", { email: user.email, password: user.password });
    expect(response.status).toBe(403);
    expect(browser.cookies.has("__Host-session")).toBe(false);
  });

  it("returns to a same-origin path only: never to another site", async () => {
    const user = await consoleUser();
    const landing = async (returnTo: string) =>
      (await new ConsoleBrowser().signIn(user.email, user.password, returnTo)).headers.get("location");
    expect(await landing("/console/usage?from=x#top")).toBe("/console/usage?from=x#top");
    expect(await landing("/oauth/authorize?client_id=cli_1&state=a")).toBe("/oauth/authorize?client_id=cli_1&state=a");
    for (const attack of [
      "https://evil.example/",
      "//evil.example/",
      "/\\evil.example/",
      "\\\\evil.example",
      "/\t/evil.example",
      "javascript:alert(1)",
      "evil.example",
      " /console",
      // Dot segments the URL parser removes, leaving a protocol-relative `//evil.example`.
      "/.//evil.example",
      "/console/..//evil.example/",
      "/%2e//evil.example",
    ]) {
      expect(await landing(attack), attack).toBe("/console/api-keys");
    }
    const { html } = await new ConsoleBrowser().page(`/console/sign-in?return_to=${encodeURIComponent("//evil.example")}`);
    expect(html).not.toContain("evil.example");
  });

  it("sends a browser with a tampered or expired session cookie back to sign-in and clears the cookie", async () => {
    const { user, browser } = await signedInUser();
    browser.cookies.set("__Host-session", `${browser.cookies.get("__Host-session")}x`);
    const tampered = await browser.fetch("/console/usage");
    expect(tampered.status).toBe(303);
    expect(tampered.headers.get("location")).toBe(`/console/sign-in?return_to=${encodeURIComponent("/console/usage")}`);
    expect(browser.cookies.has("__Host-session")).toBe(false);

    const second = new ConsoleBrowser();
    await second.signIn(user.email, user.password);
    await db()
      .update(control.consoleSessions)
      .set({ expiresAt: Date.now() - 1 })
      .where(eq(control.consoleSessions.userId, user.userId));
    expect((await second.fetch("/console/api-keys")).status).toBe(303);
  });

  it("signs out: the session is revoked and its cookie no longer opens a page", async () => {
    const { browser } = await signedInUser();
    const token = browser.cookies.get("__Host-session") as string;
    const { csrf } = await browser.page("/console/api-keys");
    const response = await browser.post("/console/sign-out", { csrf });
    expect(response.status).toBe(303);
    expect(browser.cookies.has("__Host-session")).toBe(false);
    browser.cookies.set("__Host-session", token);
    expect((await browser.fetch("/console/api-keys")).status).toBe(303);
  });
});

describe("console forms", () => {
  it("refuse a missing CSRF token or one of another session, and change nothing", async () => {
    const { user, browser } = await signedInUser();
    const other = await signedInUser();
    const { csrf: foreign } = await other.browser.page("/console/api-keys");
    for (const fields of [{}, { csrf: foreign }, { csrf: "forged" }] as Record<string, string>[]) {
      const response = await browser.post("/console/api-keys", { ...fields, name: "Sneaky", scopes: "crm:records:read" });
      expect(response.status).toBe(403);
      expect(text(await response.text())).toContain("Nothing was changed");
    }
    expect(await keysOf(user.userId)).toHaveLength(1); // the fixture's own key only
  });

  it("refuse oversized bodies (413) and overlong fields (400)", async () => {
    const { browser } = await signedInUser();
    const { csrf } = await browser.page("/console/api-keys");
    expect((await browser.post("/console/api-keys", { csrf, name: "x".repeat(20_000) })).status).toBe(413);
    expect((await browser.post("/console/api-keys", { csrf, name: "x".repeat(300), scopes: "crm:records:read" })).status).toBe(
      400,
    );
    expect((await new ConsoleBrowser().post("/console/sign-in", { email: "a@b.c", password: "p".repeat(2_000) })).status).toBe(
      400,
    );
  });
});

describe("console API keys", () => {
  it("create a key limited to one workspace, shown once, that works at once and is refused once revoked", async () => {
    const { user, browser } = await signedInUser({ workspaceCount: 2 });
    const [first, second] = user.workspaceIds as [string, string];
    const { response, html, key } = await createKeyOnPage(browser, {
      name: "Reporting",
      scopes: "crm:records:read",
      workspaceIds: first,
      expiresInDays: "7",
    });
    expect(response.status).toBe(303);
    expect(key).toMatch(/^crm_[0-9A-Za-z]{12}_[0-9A-Za-z]{43}$/);
    expect(text(html)).toContain("shown this once");
    const workspaces = (await (await call("/workspaces", { key: key as string })).json()) as { data: { id: string }[] };
    expect(workspaces.data.map((workspace) => workspace.id)).toEqual([first]);
    expect(workspaces.data.map((workspace) => workspace.id)).not.toContain(second);

    // The list shows it (prefix, scopes, limit, expiry) without the secret, and its activity once written.
    const listed = await eventually(
      async () => text((await browser.page("/console/api-keys")).html),
      (page) => page.includes("latest 1 of 1 uses"),
    );
    expect(listed).toContain(`crm_${(key as string).slice(4, 16)}_…`);
    expect(listed).toContain("CRM records read");
    expect(listed).toContain("Workspace 0");
    expect(listed).toContain("GET /workspaces");
    const again = await browser.page("/console/api-keys");
    expect(again.html).not.toContain(key as string);

    const [row] = (await keysOf(user.userId)).filter((candidate) => candidate.name === "Reporting");
    expect(row?.expiresAt).toBeGreaterThan(Date.now() + 6 * 86_400_000);
    const revoked = await browser.post(`/console/api-keys/${row?.id}/revoke`, { csrf: again.csrf });
    expect(revoked.status).toBe(303);
    expect((await call("/workspaces", { key: key as string })).status).toBe(401);
    expect(text((await browser.page("/console/api-keys")).html)).not.toContain("Reporting");
  });

  it("replace a key: same settings in a new key, the old one refused", async () => {
    const { user, browser } = await signedInUser();
    const { key: old } = await createKeyOnPage(browser, {
      name: "Sync",
      scopes: ["tasks:read", "notes:read"],
      expiresInDays: "",
    });
    const [row] = (await keysOf(user.userId)).filter((candidate) => candidate.name === "Sync");
    const { csrf } = await browser.page("/console/api-keys");
    const { response, key: replacement } = await postAndFollow(browser, `/console/api-keys/${row?.id}/replace`, { csrf });
    expect(response.status).toBe(303);
    expect(replacement).not.toBe(old);
    expect((await call("/workspaces", { key: replacement as string })).status).toBe(200);
    expect((await call("/workspaces", { key: old as string })).status).toBe(401);
    const rows = (await keysOf(user.userId)).filter((candidate) => candidate.name === "Sync");
    const fresh = rows.find((candidate) => candidate.revokedAt === null);
    expect(fresh?.scopes).toEqual(["tasks:read", "notes:read"]);
    expect(fresh?.expiresAt).toBeNull();
  });

  it("refuse a key without scopes or with a workspace of another organization, creating nothing", async () => {
    const { user, browser } = await signedInUser();
    const foreign = await consoleUser();
    const noScope = await createKeyOnPage(browser, { name: "Empty" });
    expect(noScope.response.status).toBe(400);
    const elsewhere = await createKeyOnPage(browser, {
      name: "Elsewhere",
      scopes: "crm:records:read",
      workspaceIds: foreign.workspaceIds[0] as string,
    });
    expect(elsewhere.response.status).toBe(404);
    expect(await keysOf(user.userId)).toHaveLength(1);
  });

  it("cannot revoke another user's key", async () => {
    const { browser } = await signedInUser();
    const other = await consoleUser();
    const [foreignKey] = await keysOf(other.userId);
    const { csrf } = await browser.page("/console/api-keys");
    expect((await browser.post(`/console/api-keys/${foreignKey?.id}/revoke`, { csrf })).status).toBe(404);
    expect((await call("/workspaces", { key: other.key })).status).toBe(200);
  });
});

describe("console organization switcher", () => {
  it("switches the session's organization among the user's own", async () => {
    const { user, browser } = await signedInUser();
    const other = await joinAnotherOrganization(user.userId);
    const { html, csrf } = await browser.page("/console/api-keys");
    expect(html).toContain(`value="${other.organizationId}"`);
    const switched = await browser.post("/console/organization", {
      csrf,
      organizationId: other.organizationId,
      return_to: "/console/usage",
    });
    expect(switched.headers.get("location")).toBe("/console/usage");
    const { key } = await createKeyOnPage(browser, { name: "Other org", scopes: "crm:records:read" });
    const [created] = (await keysOf(user.userId)).filter((candidate) => candidate.name === "Other org");
    expect(created?.organizationId).toBe(other.organizationId);
    expect((await call("/workspaces", { key: key as string })).status).toBe(200);
    const stranger = await consoleUser();
    expect((await browser.post("/console/organization", { csrf, organizationId: stranger.organizationId })).status).toBe(404);
  });
});

describe("console usage and applications", () => {
  it("draws the organization's token usage per day and route as an accessible SVG chart, with each key's activity", async () => {
    const { browser } = await signedInUser({ workspaceCount: 1 });
    const { key } = await createKeyOnPage(browser, { name: "Charted", scopes: "crm:records:read" });
    await call("/workspaces", { key: key as string });
    const html = await eventually(
      async () => (await browser.page("/console/usage")).html,
      (page) => page.includes("GET /workspaces"),
    );
    expect(html).toMatch(/<svg role="img" aria-labelledby="usage-title usage-desc"/);
    expect(html).toContain('<title id="usage-title">Tokens per day and route</title>');
    expect(html).toMatch(/<desc id="usage-desc">[^<]+<\/desc>/);
    expect(html).toContain("UTC day");
    expect(html).not.toContain("<script");
    expect(text(html)).toContain("Charted");
  });

  it("lists the user's authorized applications and revokes one", async () => {
    const { user, browser } = await signedInUser();
    const clientId = newId("cli");
    const grantId = newId("grt");
    const now = Date.now();
    await db().batch([
      db()
        .insert(control.oauthClients)
        .values({
          id: clientId,
          name: "Calendar Sync",
          type: "public",
          secretHash: null,
          redirectUris: ["https://app.example/cb"],
          grantTypes: ["authorization_code"],
          registeredVia: "manual",
          createdAt: now,
        }),
      db()
        .insert(control.oauthGrants)
        .values({
          id: grantId,
          clientId,
          userId: user.userId,
          organizationId: user.organizationId,
          scopes: ["tasks:read"],
          resource: "http://127.0.0.1:8787/api/v1",
          createdAt: now,
        }),
    ]);
    const { html, csrf } = await browser.page("/console/applications");
    expect(text(html)).toContain("Calendar Sync");
    expect(text(html)).toContain("Tasks read");
    const stranger = await signedInUser();
    const { csrf: strangerCsrf } = await stranger.browser.page("/console/applications");
    expect((await stranger.browser.post(`/console/applications/${clientId}/revoke`, { csrf: strangerCsrf })).status).toBe(404);
    expect((await browser.post(`/console/applications/${clientId}/revoke`, { csrf })).status).toBe(303);
    const [grant] = await db().select().from(control.oauthGrants).where(eq(control.oauthGrants.id, grantId));
    expect(grant?.revokedAt).not.toBeNull();
    expect(text((await browser.page("/console/applications")).html)).not.toContain("Calendar Sync");
  });
});
