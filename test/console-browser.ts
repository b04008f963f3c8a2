import { env } from "cloudflare:test";
import { exports } from "cloudflare:workers";
import type { Operation } from "@crm/contracts";
import { control } from "@crm/db";
import { eq } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { hashPassword } from "../workers/gateway/src/identity/passwords";
import { createSession, csrfTokenFor, sessionCookieName } from "../workers/gateway/src/identity/sessions";
import { createOrganization } from "./fixtures";

/**
 * A browser for the console in the Workers runtime: it keeps cookies as a browser would (the
 * `__Host-` ones included) and submits the pages' own forms, CSRF fields and all.
 */

export const origin = "http://127.0.0.1:8787";
const gateway = (exports as unknown as { default: Fetcher }).default;

export class ConsoleBrowser {
  readonly cookies = new Map<string, string>();
  /** One client address per browser, so that sign-in limits of one test do not reach another. */
  constructor(readonly ip = `2001:db8:${crypto.randomUUID().slice(0, 4)}:${crypto.randomUUID().slice(0, 4)}::1`) {}

  async fetch(path: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (!headers.has("cf-connecting-ip")) headers.set("cf-connecting-ip", this.ip);
    if (this.cookies.size > 0) headers.set("cookie", [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; "));
    const response = await gateway.fetch(`${origin}${path}`, { ...init, headers, redirect: "manual" });
    for (const header of response.headers.getSetCookie()) {
      const [pair = "", ...attributes] = header.split(";");
      const [name = "", value = ""] = pair.split("=");
      const expired = attributes.some((attribute) => /^\s*max-age=0$/i.test(attribute));
      if (expired || value === "") this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return response;
  }

  /** Submits a urlencoded form as the page's own form would. */
  post(path: string, fields: Record<string, string | string[]>): Promise<Response> {
    const body = new URLSearchParams();
    for (const [name, value] of Object.entries(fields)) for (const entry of [value].flat()) body.append(name, entry);
    return this.fetch(path, { method: "POST", body, headers: { "content-type": "application/x-www-form-urlencoded" } });
  }

  /** The page's HTML and its CSRF token (every form of a page carries the same one). */
  async page(path: string): Promise<{ response: Response; html: string; csrf: string }> {
    const response = await this.fetch(path);
    const html = await response.text();
    return { response, html, csrf: csrfOf(html) };
  }

  async signIn(email: string, password: string, returnTo?: string): Promise<Response> {
    const { csrf } = await this.page(
      `/console/sign-in${returnTo === undefined ? "" : `?return_to=${encodeURIComponent(returnTo)}`}`,
    );
    return this.post("/console/sign-in", { csrf, email, password, ...(returnTo === undefined ? {} : { return_to: returnTo }) });
  }
}

/** The key a page shows once, if any. */
export const shownKey = (html: string) => /<code id="new-key">([^<]+)<\/code>/.exec(html)?.[1];

/** Posts a form whose answer is a redirect (post/redirect/get) and follows it as a browser would. */
export async function postAndFollow(browser: ConsoleBrowser, path: string, fields: Record<string, string | string[]>) {
  const response = await browser.post(path, fields);
  if (response.status !== 303) return { response, html: await response.text(), key: undefined, location: null };
  const location = response.headers.get("location") as string;
  const { html } = await browser.page(location);
  return { response, html, key: shownKey(html), location };
}

/** Creates a key through the API keys page's form and returns it as shown once. */
export async function createKeyOnPage(browser: ConsoleBrowser, fields: Record<string, string | string[]>) {
  const { csrf } = await browser.page("/console/api-keys");
  return postAndFollow(browser, "/console/api-keys", { csrf, ...fields });
}

export const csrfOf = (html: string) => /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? "";

/** The HTML of a page with its entities decoded, for text assertions. */
export const text = (html: string) =>
  html
    .replace(/<wbr\s*\/?>/g, "")
    .replace(/<[^>]+>/g, " ")
    .replaceAll("&quot;", '"')
    .replaceAll("&amp;", "&")
    .replaceAll("&#39;", "'")
    .replace(/\s+/g, " ");

/** A user of a fresh organization (with workspaces) who can sign in to the console. */
export async function consoleUser(options: { workspaceCount?: number; password?: string } = {}) {
  const organization = await createOrganization({ workspaceCount: options.workspaceCount ?? 2 });
  const password = options.password ?? `pw-${crypto.randomUUID()}`;
  const db = drizzle(env.CONTROL_DB);
  await db
    .update(control.users)
    .set({ passwordHash: await hashPassword(password) })
    .where(eq(control.users.id, organization.userId));
  return { ...organization, email: `${organization.userId}@test.example`, password };
}

/** A console user of a fresh organization, signed in. */
export async function signedInUser(options: { workspaceCount?: number } = {}) {
  const user = await consoleUser(options);
  const browser = new ConsoleBrowser();
  const response = await browser.signIn(user.email, user.password);
  if (response.status !== 303) throw new Error(`sign-in answered ${response.status}`);
  return { user, browser };
}

/** Makes the user a member of one more organization (a new one), for the organization switcher. */
export async function joinAnotherOrganization(userId: string) {
  const other = await createOrganization({ workspaceCount: 1 });
  await drizzle(env.CONTROL_DB)
    .insert(control.organizationMembers)
    .values({ organizationId: other.organizationId, userId, role: "admin", createdAt: Date.now() + 1 });
  return other;
}

/**
 * The headers of a console page's request for a user, with a session made directly in the control
 * D1 (for users without a password, such as the seed's): cookie, CSRF token, same origin.
 */
export async function consoleSessionHeaders(userId: string, organizationId: string): Promise<Record<string, string>> {
  const { session, token } = await createSession(drizzle(env.CONTROL_DB), { userId, organizationId });
  return {
    cookie: `${sessionCookieName}=${token}`,
    "x-csrf-token": await csrfTokenFor(env.IDENTITY_SECRET, session.id),
    origin,
    "sec-fetch-site": "same-origin",
  };
}

/** The credential an operation takes, for a fresh organization's owner: an API key, or a console session for the `/api-keys` routes. */
export async function credentialFor(operation: Operation): Promise<Record<string, string>> {
  const { key, userId, organizationId } = await createOrganization();
  return operation.auth === "session" ? consoleSessionHeaders(userId, organizationId) : { authorization: `Bearer ${key}` };
}
