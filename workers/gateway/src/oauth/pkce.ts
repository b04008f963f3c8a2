import { toBase64Url } from "@crm/contracts";
import { sameSecret } from "../identity/identity-secret";

/** RFC 7636: a verifier is 43–128 unreserved characters; an S256 challenge is base64url(SHA-256(verifier)), 43 characters. */
const verifierPattern = /^[A-Za-z0-9._~-]{43,128}$/;
export const challengePattern = /^[A-Za-z0-9_-]{43}$/;

export async function verifierMatches(verifier: string, challenge: string): Promise<boolean> {
  if (!verifierPattern.test(verifier)) return false;
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier));
  return sameSecret(toBase64Url(new Uint8Array(digest)), challenge);
}
