import { env } from "cloudflare:test";
import { drizzle } from "drizzle-orm/d1";
import { describe, expect, it } from "vitest";
import { createSession, csrfTokenFor } from "../workers/gateway/src/identity/sessions";
import { errorOf, objectTypesOf, unique } from "./crm";
import { baseUrl, call, cast } from "./stack";

/**
 * A console session as the credential of ordinary API routes (DESIGN.md section 3): the console's
 * own pages call the API with the browser's `__Host-session` cookie; nothing else may borrow it.
 */

const origin = new URL(baseUrl).origin;
const db = () => drizzle(env.CONTROL_DB);

async function signedIn(userId: string, organizationId: string | null = null) {
  const { session, token } = await createSession(db(), { userId, organizationId });
  return { session, cookie: `theme=dark; __Host-session=${token}`, csrf: await csrfTokenFor(env.IDENTITY_SECRET, session.id) };
}

const fromConsole = (cookie: string, extra: Record<string, string> = {}) => ({
  cookie,
  "sec-fetch-site": "same-origin",
  ...extra,
});

describe("a console session on API routes", () => {
  it("works from the console's own origin, as its user with every scope", async () => {
    const { alice } = await cast();
    const { cookie } = await signedIn(alice.id);
    for (const headers of [fromConsole(cookie), { cookie, origin }]) {
      const response = await call("/workspaces", { headers });
      expect(response.status).toBe(200);
      const { data } = (await response.json()) as { data: { name: string; role: string }[] };
      expect(data.map((workspace) => [workspace.name, workspace.role])).toEqual([
        ["Sales", "owner"],
        ["Support", "owner"],
      ]);
    }
  });

  it("is refused from another origin, a link from elsewhere, or a client that does not say where it is", async () => {
    const { alice } = await cast();
    const { cookie } = await signedIn(alice.id);
    const refused = {
      "another origin": { cookie, origin: "https://attacker.example" },
      "a cross-site page": { cookie, "sec-fetch-site": "cross-site" },
      "a sibling site": { cookie, "sec-fetch-site": "same-site" },
      "a link opened from elsewhere": { cookie, "sec-fetch-site": "none" },
      "same-origin claimed, another Origin": fromConsole(cookie, { origin: "https://attacker.example" }),
      "neither header": { cookie },
    };
    for (const [name, headers] of Object.entries(refused)) {
      const response = await call("/workspaces", { headers });
      expect(response.status, name).toBe(403);
      expect((await errorOf(response)).code, name).toBe("forbidden");
    }
  });

  it("needs the session's CSRF token on unsafe methods", async () => {
    const { alice, sales } = await cast();
    const { cookie, csrf } = await signedIn(alice.id);
    const other = await signedIn(alice.id);
    const [people] = await objectTypesOf(alice.apiKey, sales.id);
    const create = (headers: Record<string, string>) =>
      call("/records", { method: "POST", headers, json: { objectTypeId: people?.id, fields: { name: `Session ${unique()}` } } });

    for (const headers of [fromConsole(cookie), fromConsole(cookie, { "x-csrf-token": other.csrf })]) {
      const response = await create(headers);
      expect(response.status).toBe(403);
      expect((await errorOf(response)).message).toContain("CSRF");
    }
    const created = await create(fromConsole(cookie, { "x-csrf-token": csrf }));
    expect(created.status).toBe(201);
    expect(((await created.json()) as { record: { createdBy: string } }).record.createdBy).toBe(alice.id);
  });

  it("401 for an unknown or tampered session cookie; a bearer credential takes precedence over the cookie", async () => {
    const { alice } = await cast();
    const { cookie } = await signedIn(alice.id);
    const unknown = await call("/workspaces", { headers: fromConsole(`__Host-session=${"x".repeat(43)}`) });
    expect(unknown.status).toBe(401);
    expect((await errorOf(unknown)).code).toBe("invalid_token");
    const tampered = await call("/workspaces", { headers: fromConsole(`${cookie}x`) });
    expect(tampered.status).toBe(401);
    const withBadKey = await call("/workspaces", { key: "crm_notakey", headers: fromConsole(cookie) });
    expect(withBadKey.status).toBe(401);
  });

  it("of a user in several organizations: the console's choice, or the one X-Service-Organization-Id names", async () => {
    const { erin, initech, globex, acme } = await cast();
    const unchosen = await signedIn(erin.id);
    const required = await call("/workspaces", { headers: fromConsole(unchosen.cookie) });
    expect(required.status).toBe(400);
    expect(await errorOf(required)).toMatchObject({ code: "organization_required" });

    const inGlobex = await signedIn(erin.id, globex.id);
    const chosen = await call("/workspaces", { headers: fromConsole(inGlobex.cookie) });
    expect(((await chosen.json()) as { data: { id: string }[] }).data.map(({ id }) => id)).toEqual(
      globex.workspaces.map(({ id }) => id),
    );
    const named = await call("/workspaces", {
      headers: fromConsole(inGlobex.cookie, { "x-service-organization-id": initech.id }),
    });
    expect(((await named.json()) as { data: { id: string }[] }).data.map(({ id }) => id)).toEqual(
      initech.workspaces.map(({ id }) => id),
    );
    const foreign = await call("/workspaces", {
      headers: fromConsole(inGlobex.cookie, { "x-service-organization-id": acme.id }),
    });
    expect(foreign.status).toBe(400);
    expect((await errorOf(foreign)).code).toBe("organization_mismatch");
  });
});
