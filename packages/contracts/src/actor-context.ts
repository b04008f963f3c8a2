// With its extension: Node runs this file as it is (wrangler-template.ts imports it).
import { fromBase64Url, toBase64Url } from "./base64.ts";
import type { Surface } from "./input-paths";
import type { Scope } from "./scopes";

/** The regions an organization's data can live in; each runs its own regional Worker and D1. */
export const regions = ["us", "eu"] as const;
export type Region = (typeof regions)[number];
export const isRegion = (value: string): value is Region => (regions as readonly string[]).includes(value);

/**
 * What the gateway established about a request, handed to the regional Worker.
 * The regional Worker has no public route and trusts nothing else: the context travels in one
 * header, HMAC-signed with the secret of the region it is sent to (each region holds only its own),
 * and names the request it was signed for, so it cannot serve another region, another operation,
 * another route of the same operation, another request, or anything after a short lifetime.
 */
export interface ActorContext {
  requestId: string;
  organizationId: string;
  /** The organization's region: the only region whose Worker accepts this context. */
  region: Region;
  /** The organization's D1 shard in that region: the database the region serves this request from. */
  shard: number;
  actor: { type: "user" | "app" | "agent"; id: string };
  /** `signature`: a provider's signed inbound webhook, for its connection (the actor id), verified by the region. */
  credential: { type: "api_key" | "oauth" | "session" | "signature"; id: string };
  scopes: Scope[];
  /** Workspace limit of the credential; null means every workspace the actor can access. */
  workspaceIds: string[] | null;
  /** The user's organization role; admins and owners reach every workspace. Null for apps and agents. */
  organizationRole: "owner" | "admin" | "member" | null;
  operationId: string;
  /** HTTP method of the request as sent to the region. */
  method: string;
  /** Path template of the operation, e.g. `/records/{recordId}`. */
  path: string;
  /** Path and query of the request as sent to the region, e.g. `/api/v1/records/rec_…?x=1`. */
  target: string;
  /** The surface the operation was called through: it names invalid inputs its way (`input-paths.ts`). */
  surface: Surface;
  issuedAt: number;
}

/** What a region checks a context against: the request it is serving, as it sees it. */
export type SignedRequest = Pick<ActorContext, "region" | "operationId" | "method" | "path" | "target">;

export const actorContextHeader = "x-actor-context";
/** The API's public `{base_url}` as the gateway was reached, set by the gateway on every forward (a connection's inbound URL). */
export const publicBaseUrlHeader = "x-public-base-url";
const maxAgeMs = 60_000;

const encoder = new TextEncoder();

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

export const signToken = (payload: unknown, secret: string): Promise<string> => signJson(JSON.stringify(payload), secret);

/** A token of JSON text: the text in base64url, a dot, its HMAC-SHA256 in base64url. */
async function signJson(json: string, secret: string): Promise<string> {
  const body = toBase64Url(encoder.encode(json));
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

/** What a context says about the one request it was issued for. */
export type ContextRequest = Pick<
  ActorContext,
  "requestId" | "operationId" | "method" | "path" | "target" | "surface" | "issuedAt"
>;
/** What a context says about who calls: the same for every request of a credential. */
export type ContextActor = Omit<ActorContext, keyof ContextRequest>;

/** Each actor's JSON, made on its first request: an actor is never changed once made (`signActorContextOf`). */
const actorJson = new WeakMap<ContextActor, string>();

/**
 * `signActorContext` of `{ ...actor, ...request }`, the same token for the region, with the actor's
 * part serialized once per actor object rather than on each request: the gateway keeps an API key's
 * actor for as long as it keeps the key, and serializing its scopes and limits was the largest part
 * of signing (issue 30's profile of the gateway). `actor` must not change after its first use here.
 */
export function signActorContextOf(actor: ContextActor, request: ContextRequest, secret: string): Promise<string> {
  let json = actorJson.get(actor);
  if (json === undefined) {
    json = JSON.stringify(actor);
    actorJson.set(actor, json);
  }
  // Two JSON objects joined into one: the actor's members, then the request's (which win, as in a spread).
  const requestJson = JSON.stringify(request);
  return signJson(json === "{}" ? requestJson : `${json.slice(0, -1)},${requestJson.slice(1)}`, secret);
}

/**
 * The context of `token` if it was signed with `secret` (the region's own), is fresh, and was issued
 * for exactly `request`; null for anything else.
 */
export async function verifyActorContext(
  token: string | undefined,
  secret: string,
  request: SignedRequest,
  now = Date.now(),
): Promise<ActorContext | null> {
  if (!token) return null;
  const context = (await verifyToken(token, secret)) as ActorContext | null;
  if (!context || typeof context.issuedAt !== "number" || Math.abs(now - context.issuedAt) > maxAgeMs) return null;
  const signedFor = (Object.keys(request) as (keyof SignedRequest)[]).every((name) => context[name] === request[name]);
  return signedFor ? context : null;
}
