import { exports } from "cloudflare:workers";
import { assertDocumentedResponse } from "./response-contract";

/** Test helpers: requests to the gateway under test, and the demo seed of DESIGN.md section 13. */

export const baseUrl = "http://127.0.0.1:8787/api/v1";

export interface Demo {
  baseUrl: string;
  organizations: {
    id: string;
    name: string;
    region: "us" | "eu";
    /** Its D1 shard in the region (Acme and Initech are on different us shards). */
    shard: number;
    /** Each with its shared mailbox address. */
    workspaces: { id: string; name: string; mailbox: string }[];
    /**
     * Members of the organization; `apiKey` and the console `password` only for those whose home it
     * is (a guest's are on their own organization's entry).
     */
    users: { id: string; name: string; email: string; organizationRole: string; password?: string; apiKey?: string }[];
    agent?: { id: string; name: string };
    agentApiKey?: string;
    readOnlyKey?: string;
    expiredKey?: string;
    revokedKey?: string;
  }[];
  /** A confidential web app installed in Acme (client credentials), then a public client. */
  oauthClients: { clientId: string; clientSecret?: string; name: string; redirectUri: string; installedIn?: string }[];
}

const gateway = (exports as unknown as { default: Fetcher }).default;

/**
 * A request to the gateway, as a client sends it. The response is checked against the OpenAPI
 * document (test/response-contract.ts) before the test sees it: an undocumented status, body or
 * header fails the test.
 */
export async function call(path: string, init: RequestInit & { key?: string; json?: unknown } = {}): Promise<Response> {
  const { key, json, ...rest } = init;
  const headers = new Headers(rest.headers);
  // Each call from its own client (an IPv6 /64 of its own) unless a test picks one: the per-client
  // window of failed authentications (60 a minute) would otherwise couple unrelated tests.
  if (!headers.has("cf-connecting-ip"))
    headers.set("cf-connecting-ip", `2001:db8:${crypto.randomUUID().slice(0, 4)}:${crypto.randomUUID().slice(0, 4)}::1`);
  if (key) headers.set("authorization", `Bearer ${key}`);
  if (json !== undefined) headers.set("content-type", "application/json");
  const response = await gateway.fetch(`${baseUrl}${path}`, {
    ...rest,
    headers,
    ...(json === undefined ? {} : { body: JSON.stringify(json) }),
  });
  await assertDocumentedResponse(rest.method ?? "GET", path, response);
  return response;
}

let seeded: Promise<Demo> | undefined;

/** Runs the demo seed (`POST /__dev/seed`) and returns its description of the demo. */
export async function seed(): Promise<Demo> {
  const response = await gateway.fetch("http://127.0.0.1:8787/__dev/seed", { method: "POST" });
  if (!response.ok) throw new Error(`seed failed: ${response.status} ${await response.text()}`);
  return (await response.json()) as Demo;
}

/** Seeds the demo data once per test file (the seed is idempotent) and returns its description. */
export function demo(): Promise<Demo> {
  seeded ??= seed();
  return seeded;
}

/** The demo's people and keys by name, for readable tests. */
export async function cast() {
  const { organizations, oauthClients } = await demo();
  const organization = (name: string) => {
    const found = organizations.find((candidate) => candidate.name === name);
    if (!found) throw new Error(`no demo organization ${name}`);
    return found;
  };
  // A user's full-scope key is for their home organization (erin's for Initech, not Globex).
  const user = (home: Demo["organizations"][number], name: string) => {
    const found = home.users.find((candidate) => candidate.email.startsWith(`${name}@`));
    if (!found?.apiKey || !found.password) throw new Error(`no demo user ${name} with a key and password in ${home.name}`);
    return { ...found, apiKey: found.apiKey, password: found.password };
  };
  const [webApp, publicClient] = oauthClients;
  if (!webApp?.clientSecret || !publicClient) throw new Error("the demo has no confidential and public OAuth client");
  const [acme, globex, initech] = [organization("Acme"), organization("Globex"), organization("Initech")];
  return {
    acme,
    globex,
    initech,
    alice: user(acme, "alice"),
    bob: user(acme, "bob"),
    carol: user(acme, "carol"),
    dave: user(globex, "dave"),
    erin: user(initech, "erin"),
    sales: acme.workspaces[0] as Demo["organizations"][number]["workspaces"][number],
    support: acme.workspaces[1] as Demo["organizations"][number]["workspaces"][number],
    /** Acme's installed confidential app (client credentials) and a public client (PKCE only). */
    webApp: { ...webApp, clientSecret: webApp.clientSecret },
    publicClient,
  };
}

/**
 * Reads until `done` holds, every `everyMs`, for effects written after the response (usage records,
 * deliveries, attempt rows); polling through the API, mind the route's window (120 reads a minute). Throws once `timeoutMs` pass, with the last value read: a guard against
 * a hang that names what never happened, instead of a later assertion on a value that is not ready.
 */
export async function eventually<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  { timeoutMs = 10_000, everyMs = 100 }: { timeoutMs?: number; everyMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline)
      throw new Error(
        `not done within ${timeoutMs} ms (${done.toString()}); last read: ${JSON.stringify(value)?.slice(0, 2_000)}`,
      );
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
