import { existsSync, mkdirSync } from "node:fs";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildWorkers, startStack } from "../../scripts/lib/stack.mjs";
import { setConsolePassword } from "./console-password";

/**
 * The console as a new user meets it, in a real headless Chromium (Debian's package) against the
 * stack on miniflare: sign in as alice, create a key limited to Sales with `crm:records:read`, copy
 * it from the page, use it, see its activity, revoke it, see it refused; and consent to an OAuth
 * application, then revoke it from the console. A screenshot of each page goes to `.artifacts/console/`.
 */

const executablePath = "/usr/bin/chromium";
const artifacts = ".artifacts/console";
const password = "correct horse battery staple";
/** What this test reads of the demo seed's description (DESIGN.md section 13). */
type DemoOrganization = { name: string; workspaces: { id: string; name: string }[]; users: { email: string; apiKey: string }[] };
let browser: Browser;
let stack: Awaited<ReturnType<typeof startStack>>;
/** Plain http on `localhost`: a secure context to Chromium (127.0.0.1 is too), so it keeps the Secure `__Host-` cookie. */
let origin: string;

beforeAll(async () => {
  if (!existsSync(executablePath))
    throw new Error("Chromium is missing: scripts/toolchain.sh installs Debian's chromium package");
  buildWorkers();
  stack = await startStack();
  origin = new URL(stack.url).origin.replace("127.0.0.1", "localhost");
  await setConsolePassword(stack, "alice@acme.example", password);
  browser = await chromium.launch({
    executablePath,
    args: ["--no-sandbox", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-gpu"],
  });
  mkdirSync(artifacts, { recursive: true });
});

afterAll(async () => {
  await browser?.close();
  await stack?.mf.dispose();
});

const screenshot = (page: Page, name: string) => page.screenshot({ path: `${artifacts}/${name}.png`, fullPage: true });

/** A request as curl would send it, with the key copied from the page. */
const curl = (path: string, key: string) =>
  fetch(new URL(`/api/v1${path}`, stack.url), { headers: { authorization: `Bearer ${key}` } });

describe("the console in a browser", () => {
  it("signs alice in, creates a Sales-only read key, shows its use, revokes it", async () => {
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on("pageerror", (error) => problems.push(error.message));
    page.on("request", (request) => {
      if (!request.url().startsWith(origin)) problems.push(`outside request: ${request.url()}`);
    });

    await page.goto(`${origin}/console`);
    expect(new URL(page.url()).pathname).toBe("/console/sign-in");
    await screenshot(page, "sign-in");
    await page.getByLabel("E-mail").fill("alice@acme.example");
    await page.getByLabel("Password").fill("not her password");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.getByRole("alert").textContent()).resolves.toContain("Wrong e-mail or password");
    await page.getByLabel("Password").fill(password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(`${origin}/console/api-keys`);
    const cookies = await page.context().cookies();
    expect(cookies.find((cookie) => cookie.name === "__Host-session")).toMatchObject({
      httpOnly: true,
      secure: true,
      sameSite: "Lax",
    });
    await screenshot(page, "api-keys");

    await page.getByLabel("Name").fill("Sales reader");
    await page.getByLabel("crm:records:read", { exact: true }).check();
    await page.getByLabel("Sales", { exact: true }).check();
    await page.getByLabel("Expires").selectOption("7");
    await page.getByRole("button", { name: "Create key" }).click();
    const key = (await page.locator("#new-key").textContent()) ?? "";
    expect(key).toMatch(/^crm_[0-9A-Za-z]{12}_[0-9A-Za-z]{43}$/);
    await screenshot(page, "api-key-created");

    const workspaces = await curl("/workspaces", key);
    expect(workspaces.status).toBe(200);
    expect(((await workspaces.json()) as { data: { name: string }[] }).data.map((workspace) => workspace.name)).toEqual([
      "Sales",
    ]);
    // Records of Sales, whose object types alice's demo key looks up (the new key may read records only).
    const organizations = stack.demo.organizations as unknown as DemoOrganization[];
    const acme = organizations.find((organization) => organization.name === "Acme");
    const aliceKey = acme?.users.find((user) => user.email.startsWith("alice@"))?.apiKey ?? "";
    const sales = acme?.workspaces.find((workspace) => workspace.name === "Sales")?.id;
    const { objects } = (await (await curl(`/crm/objects?workspaceId=${sales}`, aliceKey)).json()) as {
      objects: { id: string }[];
    };
    expect((await curl(`/records?objectTypeId=${objects[0]?.id}`, key)).status).toBe(200);
    expect((await curl("/tasks", key)).status).toBe(403);

    // Uses are written within about a second; the list then shows them.
    const row = page.locator("tr", { hasText: "Sales reader" }).first();
    await expect
      .poll(
        async () => {
          await page.goto(`${origin}/console/api-keys`);
          return row.locator("summary").textContent();
        },
        { timeout: 10_000 },
      )
      .toBe("3 recent uses");
    await row.locator("summary").click();
    await expect(row.locator("table.activity").textContent()).resolves.toContain("GET /workspaces");
    await screenshot(page, "api-key-activity");

    await page.getByRole("link", { name: "Usage" }).click();
    await expect(page.locator("svg[role=img] title").first().textContent()).resolves.toBe("Tokens per day and route");
    await expect(page.locator("svg[role=img] rect title").allTextContents()).resolves.toContainEqual(
      expect.stringContaining("GET /records: 0.2 tokens"),
    );
    await screenshot(page, "usage");
    await page.getByRole("link", { name: "Authorized applications" }).click();
    await screenshot(page, "applications");

    await page.getByRole("link", { name: "API keys" }).click();
    await page.locator("tr", { hasText: "Sales reader" }).getByRole("button", { name: "Revoke" }).click();
    await page.waitForURL(`${origin}/console/api-keys`);
    await expect(page.locator("tr", { hasText: "Sales reader" }).count()).resolves.toBe(0);
    await screenshot(page, "api-key-revoked");
    // Refused at once here (the isolate that revoked it), within 60 s everywhere.
    expect((await curl("/workspaces", key)).status).toBe(401);

    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL(`${origin}/console/sign-in`);
    expect(problems).toEqual([]);
  });

  it("sends a signed-out user from an app's authorization request through sign-in to consent, and lists the app", async () => {
    const redirectUri = "http://127.0.0.1:33418/callback";
    const registration = await fetch(new URL("/oauth/register", stack.url), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ redirect_uris: [redirectUri], client_name: "Pipeline Sync", token_endpoint_auth_method: "none" }),
    });
    expect(registration.status).toBe(201);
    const { client_id: clientId } = (await registration.json()) as { client_id: string };
    const verifier = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");
    const challenge = Buffer.from(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier))).toString(
      "base64url",
    );
    const authorize = new URL("/oauth/authorize", origin);
    for (const [name, value] of Object.entries({
      response_type: "code",
      client_id: clientId,
      redirect_uri: redirectUri,
      scope: "crm:records:read tasks:read",
      state: "state-123",
      code_challenge: challenge,
      code_challenge_method: "S256",
    }))
      authorize.searchParams.set(name, value);

    const context = await browser.newContext();
    const page = await context.newPage();
    // The app's callback is not served here: the browser's arrival there is the result.
    let callback: URL | undefined;
    await page.route(`${redirectUri}**`, async (route) => {
      callback = new URL(route.request().url());
      await route.fulfill({ status: 200, contentType: "text/plain", body: "back at the app" });
    });
    await page.goto(authorize.href);
    expect(new URL(page.url()).pathname).toBe("/console/sign-in");
    await page.getByLabel("E-mail").fill("alice@acme.example");
    await page.getByLabel("Password").fill(password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL((url) => url.pathname === "/oauth/authorize");
    await expect(page.getByText("Pipeline Sync").first().isVisible()).resolves.toBe(true);
    await screenshot(page, "oauth-consent");
    await page.getByRole("button", { name: "Allow" }).click();
    await page.waitForURL((url) => url.href.startsWith(redirectUri));
    expect(callback?.searchParams.get("state")).toBe("state-123");

    // At the issuer the browser saw (localhost), as the app would.
    const token = await fetch(new URL("/oauth/token", origin), {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "authorization_code",
        code: callback?.searchParams.get("code") ?? "",
        redirect_uri: redirectUri,
        client_id: clientId,
        code_verifier: verifier,
      }),
    });
    expect(token.status).toBe(200);
    expect(((await token.json()) as { scope: string }).scope.split(" ").sort()).toEqual(["crm:records:read", "tasks:read"]);

    await page.goto(`${origin}/console/applications`);
    const row = page.locator("tr", { hasText: "Pipeline Sync" });
    await expect(row.textContent()).resolves.toContain("crm:records:read, tasks:read");
    await screenshot(page, "applications-authorized");
    await row.getByRole("button", { name: "Revoke" }).click();
    await page.waitForURL(`${origin}/console/applications`);
    await expect(page.locator("tr", { hasText: "Pipeline Sync" }).count()).resolves.toBe(0);
    await context.close();
  });
});
