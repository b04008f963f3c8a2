import type { Scope } from "./scopes";

/**
 * What the gateway established about a request, handed to the regional Worker.
 * The regional Worker has no public route and trusts nothing else: the context travels in one
 * header, HMAC-signed with a secret only the gateway and the regions hold, and bound to the
 * operation and a short lifetime so it cannot be replayed against another route later.
 */
export interface ActorContext {
  requestId: string;
  organizationId: string;
  actor: { type: "user" | "app" | "agent"; id: string };
  credential: { type: "api_key" | "oauth" | "session"; id: string };
  scopes: Scope[];
  /** Workspace limit of the credential; null means every workspace the actor can access. */
  workspaceIds: string[] | null;
  /** The user's organization role; admins and owners reach every workspace. Null for apps and agents. */
  organizationRole: "owner" | "admin" | "member" | null;
  operationId: string;
  issuedAt: number;
}

export const actorContextHeader = "x-actor-context";
const maxAgeMs = 60_000;

const encoder = new TextEncoder();

function toBase64Url(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

function fromBase64Url(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text.replaceAll("-", "+").replaceAll("_", "/"));
  return Uint8Array.from(binary, (char) => char.charCodeAt(0));
}

const keys = new Map<string, Promise<CryptoKey>>();

/** HMAC-SHA256 keys are imported once per isolate and secret, not per request. */
export function hmacKey(secret: string): Promise<CryptoKey> {
  let key = keys.get(secret);
  if (!key) {
    key = crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]);
    keys.set(secret, key);
  }
  return key;
}

export async function signToken(payload: unknown, secret: string): Promise<string> {
  const body = toBase64Url(encoder.encode(JSON.stringify(payload)));
  const signature = await crypto.subtle.sign("HMAC", await hmacKey(secret), encoder.encode(body));
  return `${body}.${toBase64Url(new Uint8Array(signature))}`;
}

/** Returns the payload of a token signed with `secret`, or null when it is malformed or forged. */
export async function verifyToken(token: string, secret: string): Promise<unknown> {
  const [body, signature, extra] = token.split(".");
  if (!body || !signature || extra !== undefined) return null;
  try {
    const valid = await crypto.subtle.verify("HMAC", await hmacKey(secret), fromBase64Url(signature), encoder.encode(body));
    return valid ? JSON.parse(new TextDecoder().decode(fromBase64Url(body))) : null;
  } catch {
    return null;
  }
}

export const signActorContext = (context: ActorContext, secret: string) => signToken(context, secret);

export async function verifyActorContext(token: string | undefined, secret: string, now = Date.now()) {
  if (!token) return null;
  const context = (await verifyToken(token, secret)) as ActorContext | null;
  if (!context || typeof context.issuedAt !== "number") return null;
  return Math.abs(now - context.issuedAt) <= maxAgeMs ? context : null;
}

export { fromBase64Url, toBase64Url };
