import { fromBase64Url, toBase64Url } from "@crm/contracts";
import { identityMac, sameSecret } from "../identity/identity-secret";
import type { AuthorizationRequest } from "./authorization-request";

/**
 * The consent form carries the authorization request it answers as a signed reference: the exact
 * request as checked, the session that saw the page, and the id of the grant that allowing it
 * will create. A consent POST counts only with the reference, from the same session (cookie and
 * CSRF token), within 10 minutes, and once: the grant id is reserved, so a second POST finds it
 * taken and grants nothing.
 */
export interface ConsentReference {
  request: AuthorizationRequest;
  sessionId: string;
  grantId: string;
  expiresAt: number;
}

export const consentLifetimeMs = 10 * 60 * 1000;
const encoder = new TextEncoder();

export async function signConsentReference(secret: string, reference: ConsentReference): Promise<string> {
  const body = toBase64Url(encoder.encode(JSON.stringify(reference)));
  return `${body}.${await identityMac(secret, "consent-request", body)}`;
}

/** The reference if it is ours, unexpired and made for this session; null otherwise. */
export async function readConsentReference(
  secret: string,
  text: string | null,
  sessionId: string,
  now = Date.now(),
): Promise<ConsentReference | null> {
  const [body, mac, extra] = (text ?? "").split(".");
  if (!body || !mac || extra !== undefined) return null;
  if (!sameSecret(await identityMac(secret, "consent-request", body), mac)) return null;
  const reference = JSON.parse(new TextDecoder().decode(fromBase64Url(body))) as ConsentReference;
  return reference.sessionId === sessionId && reference.expiresAt > now ? reference : null;
}
