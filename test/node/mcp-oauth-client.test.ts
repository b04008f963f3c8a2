import { auth, createMCPClient, type OAuthClientProvider } from "@ai-sdk/mcp";
import { type Browser, type BrowserContext, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readScopes } from "../../packages/contracts/src/scopes.ts";
import { startStack } from "../../scripts/lib/stack.mjs";
import { setConsolePassword } from "./console-password";

/**
 * An MCP client this project does not otherwise use, `@ai-sdk/mcp`, through the whole OAuth path of
 * the MCP authorization specification, against the stack on miniflare: the 401 challenge, RFC 9728
 * metadata of the resource it was given (`/mcp`, and `/api/v1/mcp` for clients configured with
 * `{base_url}`), RFC 8414 discovery, dynamic client registration, the authorization code with PKCE
 * (sign-in and consent driven in headless Chromium), the token for the read scopes the challenge
 * named, and a step-up when a write tool answers 403 `insufficient_scope`.
 */

const executablePath = "/usr/bin/chromium";
const password = "correct horse battery staple";
const redirectUrl = "http://127.0.0.1:33419/callback";
type DemoOrganization = { name: string; workspaces: { id: string; name: string }[] };

let browser: Browser;
let context: BrowserContext;
let stack: Awaited<ReturnType<typeof startStack>>;
/** `localhost`: a secure context to Chromium, so it keeps the console's `__Host-` cookie. */
let origin: string;
let salesId: string;

beforeAll(async () => {
  stack = await startStack();
  origin = new URL(stack.url).origin.replace("127.0.0.1", "localhost");
  await setConsolePassword(stack, "alice@acme.example", password);
  const acme = (stack.demo.organizations as unknown as DemoOrganization[]).find((organization) => organization.name === "Acme");
  salesId = acme?.workspaces.find((workspace) => workspace.name === "Sales")?.id ?? "";
  browser = await chromium.launch({
    executablePath,
    args: ["--no-sandbox", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-gpu"],
  });
  context = await browser.newContext();
});

afterAll(async () => {
  await browser?.close();
  await stack?.mf.dispose();
});

/** What an application keeps for the client between runs: here, in memory. */
class InMemoryProvider implements OAuthClientProvider {
  stored: Record<string, unknown> = {};
  /** Where the client sent the user last; the test's browser goes there. */
  authorizationUrl: URL | undefined;
  readonly redirectUrl = redirectUrl;
  readonly clientMetadata = {
    redirect_uris: [redirectUrl],
    client_name: "AI SDK agent",
    token_endpoint_auth_method: "none",
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
  };
  /** Stores a value under `name`, as `saveTokens`, `saveClientInformation` and the others do. */
  readonly #keep =
    (name: string) =>
    (value: unknown): void => {
      this.stored[name] = value;
    };
  tokens = () => this.stored.tokens as never;
  saveTokens = this.#keep("tokens");
  clientInformation = () => this.stored.client as never;
  saveClientInformation = this.#keep("client");
  authorizationServerInformation = () => this.stored.server as never;
  saveAuthorizationServerInformation = this.#keep("server");
  codeVerifier = () => this.stored.verifier as string;
  saveCodeVerifier = this.#keep("verifier");
  state = () => crypto.randomUUID();
  saveState = this.#keep("state");
  storedState = () => this.stored.state as string | undefined;
  redirectToAuthorization = (url: URL) => {
    this.authorizationUrl = url;
  };
  invalidateCredentials = (scope: string) => {
    if (scope === "tokens" || scope === "all") delete this.stored.tokens;
  };
}

/**
 * The user at the authorization URL in the browser: signs in if asked (once per browser context),
 * allows on the consent page, and the app's callback (not served: the browser's arrival is the
 * result) hands back the code, state and issuer.
 */
async function consentInBrowser(authorizationUrl: URL) {
  const page = await context.newPage();
  let callback: URL | undefined;
  await page.route(`${redirectUrl}**`, async (route) => {
    callback = new URL(route.request().url());
    await route.fulfill({ status: 200, contentType: "text/plain", body: "back at the agent" });
  });
  await page.goto(authorizationUrl.href);
  if (new URL(page.url()).pathname === "/console/sign-in") {
    await page.getByLabel("E-mail").fill("alice@acme.example");
    await page.getByLabel("Password").fill(password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL((url) => url.pathname === "/oauth/authorize");
  }
  await expect(page.getByText("AI SDK agent").first().isVisible()).resolves.toBe(true);
  await page.getByRole("button", { name: "Allow" }).click();
  await page.waitForURL((url) => url.href.startsWith(redirectUrl));
  await page.close();
  if (!callback) throw new Error("the browser never reached the callback");
  return {
    authorizationCode: callback.searchParams.get("code") ?? "",
    callbackState: callback.searchParams.get("state") ?? "",
    callbackIssuer: callback.searchParams.get("iss") ?? "",
  };
}

/** Connects with the provider, going through the browser when the client asks for authorization. */
async function connect(serverUrl: string, provider: InMemoryProvider, fetchFn: typeof fetch = fetch) {
  const open = () => createMCPClient({ transport: { type: "http", url: serverUrl, authProvider: provider, fetch: fetchFn } });
  try {
    return await open();
  } catch (error) {
    if (!provider.authorizationUrl) throw error;
  }
  const authorizationUrl = provider.authorizationUrl;
  provider.authorizationUrl = undefined;
  expect(await auth(provider, { serverUrl, ...(await consentInBrowser(authorizationUrl)) })).toBe("AUTHORIZED");
  return open();
}

const grantedScopes = (provider: InMemoryProvider) =>
  ((provider.stored.tokens as { scope: string }).scope ?? "").split(" ").sort();

describe.each(["/mcp", "/api/v1/mcp"])("@ai-sdk/mcp through OAuth at %s", (path) => {
  it("registers, is authorized for the read scopes in the browser, calls tools, and steps up to write", async () => {
    const serverUrl = `${origin}${path}`;
    const provider = new InMemoryProvider();
    // Every answer the client gets, so the test can read the challenge of a refused call.
    let lastChallenge: string | null = null;
    const watching: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      if (response.status === 403) lastChallenge = response.headers.get("www-authenticate");
      return response;
    };

    const client = await connect(serverUrl, provider, watching);
    expect(grantedScopes(provider)).toEqual([...readScopes].sort());
    const { tools } = await client.listTools();
    expect(tools.some((tool) => tool.name === "crm_objects_create")).toBe(true);
    const objects = await client.callTool({ name: "crm_objects_list", arguments: { workspaceId: salesId } });
    expect(objects.isError).toBeFalsy();
    expect((objects.structuredContent as { objects: unknown[] }).objects.length).toBeGreaterThan(0);

    // A write outside the read grant: HTTP 403 insufficient_scope, naming what to ask for.
    const create = { workspaceId: salesId, nameSingular: `Lead ${path}`, namePlural: `Leads ${path}` };
    await expect(client.callTool({ name: "crm_objects_create", arguments: create })).rejects.toThrow();
    await client.close();
    expect(lastChallenge).toMatch(/error="insufficient_scope"/);
    const scope = /scope="([^"]+)"/.exec(lastChallenge ?? "")?.[1] ?? "";
    expect(scope.split(" ")).toContain("crm:metadata:write");

    // The step-up: authorization again for the scopes the challenge named, the user already signed in.
    await provider.invalidateCredentials("tokens");
    expect(await auth(provider, { serverUrl, scope })).toBe("REDIRECT");
    const authorizationUrl = provider.authorizationUrl as URL;
    provider.authorizationUrl = undefined;
    expect(await auth(provider, { serverUrl, ...(await consentInBrowser(authorizationUrl)) })).toBe("AUTHORIZED");
    expect(grantedScopes(provider)).toEqual([...readScopes, "crm:metadata:write"].sort());
    const stepped = await connect(serverUrl, provider, watching);
    const created = await stepped.callTool({ name: "crm_objects_create", arguments: create });
    expect(created.isError, JSON.stringify(created.content)).toBeFalsy();
    await stepped.close();
  });
});
