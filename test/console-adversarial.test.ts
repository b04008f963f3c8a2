import { describe, expect, it } from "vitest";
import { ConsoleBrowser, consoleUser } from "./console-browser";

/** The console tried as an attacker would: framing, caching, session fixation, the key shown once. */

describe("console pages", () => {
  it("are unframeable, uncached and unsniffable, error pages and the sign-in page included", async () => {
    const user = await consoleUser();
    const browser = new ConsoleBrowser();
    const signIn = await browser.fetch("/console/sign-in");
    await browser.signIn(user.email, user.password);
    const pages = [
      signIn,
      await browser.fetch("/console/api-keys"),
      await browser.fetch("/console/applications"),
      await browser.fetch("/console/usage"),
      await browser.post("/console/api-keys", { name: "no csrf" }),
      await browser.post("/console/api-keys/key_nosuchkey/revoke", {}),
    ];
    for (const page of pages) {
      expect(page.headers.get("content-security-policy"), page.url).toContain("frame-ancestors 'none'");
      // For browsers that predate frame-ancestors.
      expect(page.headers.get("x-frame-options"), page.url).toBe("DENY");
      expect(page.headers.get("cache-control"), page.url).toBe("no-store");
      expect(page.headers.get("x-content-type-options"), page.url).toBe("nosniff");
    }
  });

  it("never take a session from the URL, and sign-in replaces a session cookie planted before it", async () => {
    const user = await consoleUser();
    const victim = new ConsoleBrowser();
    const attacker = new ConsoleBrowser();
    await attacker.signIn(user.email, user.password);
    const planted = attacker.cookies.get("__Host-session") as string;
    for (const query of [`session=${planted}`, `__Host-session=${planted}`, `sessionId=${planted}`]) {
      const response = await victim.fetch(`/console/api-keys?${query}`);
      expect(response.status, query).toBe(303);
      expect(response.headers.get("location")).toMatch(/^\/console\/sign-in/);
    }
    victim.cookies.set("__Host-session", "planted-by-attacker");
    await victim.signIn(user.email, user.password);
    expect(victim.cookies.get("__Host-session")).not.toBe("planted-by-attacker");
    expect(victim.cookies.get("__Host-session")).not.toBe(planted);
  });

  it("show a new key on the answer that made it and on no page after", async () => {
    const user = await consoleUser();
    const browser = new ConsoleBrowser();
    await browser.signIn(user.email, user.password);
    const { csrf } = await browser.page("/console/api-keys");
    const created = await browser.post("/console/api-keys", { csrf, name: "Once", scopes: "tasks:read" });
    const shown = await browser.fetch(created.headers.get("location") as string);
    const key = /<code id="new-key">([^<]+)<\/code>/.exec(await shown.text())?.[1] as string;
    expect(key).toMatch(/^crm_/);
    expect(shown.headers.get("cache-control")).toBe("no-store");
    for (const path of ["/console/api-keys", "/console/usage", "/console/applications"]) {
      expect(await (await browser.fetch(path)).text(), path).not.toContain(key);
    }
  });
});
