import { existsSync, mkdirSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStack } from "../../scripts/lib/stack.mjs";

/**
 * The API reference page (Scalar, served with its build from the crm-docs-assets Worker's static assets) in a real
 * headless Chromium (Debian's package) against the stack on miniflare: every operation of the
 * document is listed, the try-it client sends `GET /workspaces` with a pasted key and shows the 200,
 * nothing is requested from another origin and the page's CSP refuses nothing Scalar does. Screenshots
 * go to `.artifacts/docs/`.
 */

const executablePath = "/usr/bin/chromium";
const artifacts = ".artifacts/docs";
let browser: Browser;
let stack: Awaited<ReturnType<typeof startStack>>;

type OpenApiDocument = { paths: Record<string, Record<string, { operationId: string; summary: string }>> };

beforeAll(async () => {
  if (!existsSync(executablePath))
    throw new Error("Chromium is missing: scripts/toolchain.sh installs Debian's chromium package");
  stack = await startStack();
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

/** The first line of each text: a sidebar link reads as its summary, then its method. */
const firstLines = (texts: string[]) => texts.map((text) => text.split("\n")[0]?.trim() ?? "");

describe("the API reference page", () => {
  it("lists every operation, sends a request with a pasted key, and loads nothing from elsewhere", async () => {
    const origin = new URL(stack.url).origin;
    const alice = stack.demo.organizations[0]?.users[0];
    if (!alice) throw new Error("the demo has no alice");
    const page = await browser.newPage();
    const requests: string[] = [];
    const problems: string[] = [];
    page.on("request", (request) => requests.push(request.url()));
    page.on("console", (message) => {
      if (message.type() === "error") problems.push(message.text());
    });
    page.on("pageerror", (error) => problems.push(error.message));
    // What the CSP refused (a refused request never reaches the network, so it is counted here).
    await page.addInitScript(() => {
      const refused: string[] = [];
      Object.assign(window, { refusedByPolicy: refused });
      document.addEventListener("securitypolicyviolation", (event) =>
        refused.push(`${event.effectiveDirective} ${event.blockedURI}`),
      );
    });

    const response = await page.goto(`${origin}/api/v1/docs`);
    expect(response?.status()).toBe(200);
    await page.waitForLoadState("networkidle");

    // Every operation of the document, by its summary, in the sidebar (all groups open).
    const openApi = (await (await fetch(`${origin}/api/v1/openapi.json`)).json()) as OpenApiDocument;
    const operations = Object.values(openApi.paths).flatMap((pathItem) => Object.values(pathItem));
    expect(operations.length).toBeGreaterThan(50);
    const listed = firstLines(await page.getByRole("link").allInnerTexts());
    const missing = operations.filter((operation) => !listed.includes(operation.summary));
    expect(missing.map((operation) => operation.operationId)).toEqual([]);
    // Schemas resolved and Markdown rendered: no `$ref` shown, backticks became code.
    const text = (await page.locator("#app").textContent()) ?? "";
    expect(text).toContain("List workspaces");
    expect(text).not.toContain("#/components/");
    expect(text).not.toContain("`X-Request-Id`");
    await page.locator("code", { hasText: "X-Request-Id" }).first().waitFor();
    await page.screenshot({ path: `${artifacts}/reference.png` });

    // The try-it client: paste alice's key, open List workspaces, send.
    await page.getByPlaceholder("Token").first().fill(alice.apiKey);
    await page.getByRole("link", { name: "List workspaces" }).first().click();
    // Its response is `{ data: [$ref Workspace] }`: the example shows the component's own properties.
    await page.getByText('"isInheritedAccess"').first().waitFor({ state: "attached" });
    // Realistic examples, never the `"string"` placeholder (issue 26 point 13): the document's own.
    await page.getByText('"Pipeline and customer conversations of the sales team"').first().waitFor({ state: "attached" });
    expect(await page.getByText('"string"', { exact: true }).count()).toBe(0);
    await page
      .getByRole("button", { name: /Test Request.*get \/workspaces/ })
      .first()
      .click();
    const sent = page.waitForResponse((candidate) => new URL(candidate.url()).pathname === "/api/v1/workspaces");
    await page.getByRole("button", { name: /^Send/ }).first().click();
    const answer = await sent;
    expect(answer.status()).toBe(200);
    expect(answer.request().headers().authorization).toBe(`Bearer ${alice.apiKey}`);
    // The page shows the answer: its status and the demo's workspaces.
    await page.getByText("200 OK").first().waitFor();
    await page.getByText('"Sales"').first().waitFor();
    await page.screenshot({ path: `${artifacts}/try-it.png` });

    // data: and blob: URLs are the page's own memory, not requests.
    const outside = requests.filter((url) => /^https?:/.test(url) && new URL(url).origin !== origin);
    expect({ requests: requests.length > 0, outside }).toEqual({ requests: true, outside: [] });
    // The zod inside Scalar probes for code generation with `Function("")`, catches the refusal and
    // validates without it; nothing else may be refused.
    const refused = await page.evaluate(() => (window as unknown as { refusedByPolicy: string[] }).refusedByPolicy);
    expect(refused.filter((violation) => violation !== "script-src eval")).toEqual([]);
    expect(problems).toEqual([]);
  });
});
