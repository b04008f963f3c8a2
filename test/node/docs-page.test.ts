import { existsSync, mkdirSync } from "node:fs";
import { catalogue } from "@crm/contracts";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildWorkers, startStack } from "../../scripts/lib/stack.mjs";

/** The docs page in a real headless Chromium (Debian's package), served by the gateway on miniflare. */

const executablePath = "/usr/bin/chromium";
let browser: Browser;
let stack: Awaited<ReturnType<typeof startStack>>;

beforeAll(async () => {
  if (!existsSync(executablePath))
    throw new Error("Chromium is missing: scripts/toolchain.sh installs Debian's chromium package");
  buildWorkers();
  stack = await startStack();
  browser = await chromium.launch({
    executablePath,
    args: ["--no-sandbox", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-gpu"],
  });
});

afterAll(async () => {
  await browser?.close();
  await stack?.mf.dispose();
});

describe("the API reference page", () => {
  it("loads without errors or outside requests and lists every operation", async () => {
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on("console", (message) => {
      if (message.type() === "error") problems.push(message.text());
    });
    page.on("pageerror", (error) => problems.push(error.message));
    const origin = new URL(stack.url).origin;
    page.on("request", (request) => {
      if (!request.url().startsWith(origin)) problems.push(`outside request: ${request.url()}`);
    });
    const response = await page.goto(new URL("/api/v1/docs", origin).href);
    expect(response?.status()).toBe(200);
    expect(await page.title()).toMatch(/CRM and inbox API 1\.0\.0/);
    const operationIds = await page.locator("section.operation dd code").allTextContents();
    for (const operation of catalogue) expect(operationIds).toContain(operation.operationId);
    // The navigation links lead to the operation sections.
    const first = catalogue[0];
    if (!first) throw new Error("empty catalogue");
    await page.locator(`nav a[href="#${first.operationId}"]`).click();
    expect(page.url()).toContain(`#${first.operationId}`);
    await expect(page.locator(`#${first.operationId}`).isVisible()).resolves.toBe(true);
    mkdirSync(".wrangler/pages", { recursive: true });
    await page.screenshot({ path: ".wrangler/pages/docs.png", fullPage: false });
    expect(problems).toEqual([]);
  });
});
