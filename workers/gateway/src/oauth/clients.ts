import { control } from "@crm/db";
import { eq } from "drizzle-orm";
import type { DrizzleD1Database } from "drizzle-orm/d1";
import { sameSecret, secretHash } from "../identity/identity-secret";
import { type OAuthParams, optional } from "./form";
import { OAuthError } from "./oauth-error";

const { oauthClients } = control;

export type OAuthClient = typeof oauthClients.$inferSelect;

export async function findClient(db: DrizzleD1Database, clientId: string): Promise<OAuthClient | null> {
  const [client] = await db.select().from(oauthClients).where(eq(oauthClients.id, clientId)).limit(1);
  return client ?? null;
}

const basicPattern = /^basic ([A-Za-z0-9+/=]+)$/i;
/** RFC 6749 section 2.3.1: client id and secret are form-urlencoded before the Basic encoding. */
const formDecode = (text: string) => decodeURIComponent(text.replaceAll("+", " "));

interface PresentedCredentials {
  clientId: string | null;
  secret: string | null;
  /** Whether the client used the Authorization header: a failure then answers 401 with a Basic challenge. */
  basic: boolean;
}

function presentedCredentials(headers: Headers, params: OAuthParams): PresentedCredentials {
  const authorization = headers.get("authorization");
  const formSecret = optional(params, "client_secret");
  const formId = optional(params, "client_id");
  if (!authorization) return { clientId: formId, secret: formSecret, basic: false };
  const encoded = basicPattern.exec(authorization)?.[1];
  if (!encoded) throw invalidClient("The Authorization header is not HTTP Basic client authentication", true);
  let decoded: string;
  try {
    decoded = atob(encoded);
  } catch {
    throw invalidClient("The Authorization header is not valid base64", true);
  }
  const separator = decoded.indexOf(":");
  if (separator < 0) throw invalidClient("The Authorization header holds no client secret", true);
  let clientId: string;
  let secret: string;
  try {
    clientId = formDecode(decoded.slice(0, separator));
    secret = formDecode(decoded.slice(separator + 1));
  } catch {
    throw invalidClient("The Authorization header is not form-urlencoded", true);
  }
  if (formSecret !== null) throw new OAuthError("invalid_request", "Use one client authentication method, not two");
  if (formId !== null && formId !== clientId)
    throw new OAuthError("invalid_request", "client_id differs from the client authenticated in the Authorization header");
  return { clientId, secret, basic: true };
}

function invalidClient(description: string, basic: boolean): OAuthError {
  return new OAuthError("invalid_client", description, basic ? { "www-authenticate": 'Basic realm="oauth"' } : {});
}

/**
 * The client of a token or revocation request: a confidential client authenticated with its secret
 * (`client_secret_basic` or `client_secret_post`), or a public client named by `client_id` (`none`).
 */
export async function authenticateClient(db: DrizzleD1Database, headers: Headers, params: OAuthParams): Promise<OAuthClient> {
  const presented = presentedCredentials(headers, params);
  if (presented.clientId === null) throw invalidClient("Client authentication is required", presented.basic);
  const client = await findClient(db, presented.clientId);
  // Hashed even for an unknown client, so the answer's timing does not tell which ids exist.
  const presentedHash = presented.secret === null ? null : await secretHash(presented.secret);
  if (!client) throw invalidClient("Client authentication failed", presented.basic);
  if (client.type === "public") {
    if (presentedHash !== null) throw invalidClient("A public client has no secret", presented.basic);
    return client;
  }
  if (presentedHash === null || client.secretHash === null || !sameSecret(presentedHash, client.secretHash))
    throw invalidClient("Client authentication failed", presented.basic);
  return client;
}

const loopbackHosts = new Set(["127.0.0.1", "[::1]", "localhost"]);

/**
 * Why a redirect URI cannot be registered, or null when it can: an absolute https URL, or http on a
 * loopback host (native and CLI apps, RFC 8252), without a fragment (RFC 6749 section 3.1.2).
 */
export function redirectUriProblem(uri: string): string | null {
  if (uri.length > 2000) return "is longer than 2000 characters";
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return "is not an absolute URL";
  }
  if (url.hash !== "" || uri.includes("#")) return "has a fragment";
  if (url.username !== "" || url.password !== "") return "carries credentials";
  if (url.protocol === "https:") return null;
  if (url.protocol === "http:" && loopbackHosts.has(url.hostname)) return null;
  return "must use https (or http on a loopback host)";
}

/** Loopback IP literals, whose port a native app picks when it starts listening (RFC 8252 section 7.3). */
const loopbackIps = new Set(["127.0.0.1", "[::1]"]);

/**
 * Whether an authorization request's redirect URI is one the client registered: exactly (RFC 6749
 * section 3.1.2.3), or a registered http loopback IP URI with another port, which OAuth 2.1 (section
 * 8.4.2) and RFC 8252 require accepting because a native app binds whichever port is free.
 */
export function isRegisteredRedirectUri(client: Pick<OAuthClient, "redirectUris">, uri: string): boolean {
  if (client.redirectUris.includes(uri)) return true;
  const requested = URL.parse(uri);
  // Only a URI already in its normal form, so no other spelling of a path or host slips in.
  if (!requested || requested.href !== uri || requested.protocol !== "http:" || !loopbackIps.has(requested.hostname))
    return false;
  requested.port = "";
  return client.redirectUris.some((registered) => {
    const url = URL.parse(registered);
    if (url?.protocol !== "http:" || url.hostname !== requested.hostname) return false;
    url.port = "";
    return url.href === requested.href;
  });
}
