import { signToken, verifyToken } from "./actor-context";

/**
 * Requests the gateway sends a region outside the route catalogue (inbound mail, unsubscribes): no
 * actor, so no actor context, but the same guarantee — a token in one header, HMAC-signed with the
 * region's own context secret, naming its purpose and short-lived, so that nothing but the gateway
 * can make a region store mail or unsubscribe an address, and a token of one purpose serves no other.
 */

export const internalRequestHeader = "x-internal-request";
const maxAgeMs = 60_000;

export interface InternalClaims {
  purpose: "inbound-mail" | "unsubscribe";
  /** The organization's D1 shard in the region: where the region reads and writes for this request. */
  shard: number;
  issuedAt: number;
}

/** What the gateway's email() handler says about a message it hands to the region. */
export interface InboundMailClaims extends InternalClaims {
  purpose: "inbound-mail";
  /** The envelope recipient, a mailbox of the region. */
  mailbox: string;
  /** SHA-256 (hex) of the raw message: the token serves these bytes only. */
  digest: string;
  /** The envelope had the null reverse-path (`MAIL FROM:<>`, RFC 5321): a bounce or another report of the mail system. */
  nullSender: boolean;
}

/** An unsubscribe link the gateway verified, recorded in the region where the organization's data lives. */
export interface UnsubscribeClaims extends InternalClaims {
  purpose: "unsubscribe";
  organizationId: string;
  address: string;
}

export const sha256Hex = async (bytes: ArrayBuffer) =>
  [...new Uint8Array(await crypto.subtle.digest("SHA-256", bytes))].map((byte) => byte.toString(16).padStart(2, "0")).join("");

export const signInternalRequest = <Claims extends InternalClaims>(claims: Claims, secret: string) => signToken(claims, secret);

/** The claims of `token` if the region's secret signed them for `purpose` within the last minute; null otherwise. */
export async function verifyInternalRequest<Claims extends InternalClaims>(
  token: string | undefined | null,
  purpose: Claims["purpose"],
  secret: string,
  now = Date.now(),
): Promise<Claims | null> {
  if (!token) return null;
  const claims = (await verifyToken(token, secret)) as Claims | null;
  if (claims?.purpose !== purpose || typeof claims.issuedAt !== "number") return null;
  return Math.abs(now - claims.issuedAt) <= maxAgeMs ? claims : null;
}
