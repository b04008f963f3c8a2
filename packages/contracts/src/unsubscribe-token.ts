import { type Region, regions, signToken, verifyToken } from "./actor-context";

/**
 * The token of a `List-Unsubscribe` link (DESIGN.md section 12): it names the organization, the
 * address and the organization's region (so the gateway, which serves the public page, knows where
 * to send the change), and expires after 90 days. The region that sends the mail signs it with a key
 * derived from its own context secret, which the gateway holds too; the `unsubscribe-link:` prefix
 * keeps it apart from actor contexts and internal requests signed with the same secret.
 */

export const unsubscribeLinkLifetimeMs = 90 * 86_400_000;

export interface UnsubscribeLink {
  purpose: "unsubscribe-link";
  organizationId: string;
  /** Lower-cased address. */
  address: string;
  region: Region;
  expiresAt: number;
}

const linkKey = (contextSecret: string) => `unsubscribe-link:${contextSecret}`;

export function signUnsubscribeLink(
  link: { organizationId: string; address: string; region: Region },
  contextSecret: string,
  now = Date.now(),
): Promise<string> {
  const claims: UnsubscribeLink = {
    purpose: "unsubscribe-link",
    organizationId: link.organizationId,
    address: link.address.toLowerCase(),
    region: link.region,
    expiresAt: now + unsubscribeLinkLifetimeMs,
  };
  return signToken(claims, linkKey(contextSecret));
}

/** The link a token names, if the secret of the region it names signed it and it has not expired; null otherwise. */
export async function verifyUnsubscribeLink(
  token: string,
  contextSecretOf: (region: Region) => string,
  now = Date.now(),
): Promise<UnsubscribeLink | null> {
  for (const region of regions) {
    const claims = (await verifyToken(token, linkKey(contextSecretOf(region)))) as UnsubscribeLink | null;
    if (claims?.purpose !== "unsubscribe-link" || claims.region !== region) continue;
    if (typeof claims.expiresAt !== "number" || claims.expiresAt < now) return null;
    if (typeof claims.address !== "string" || typeof claims.organizationId !== "string") return null;
    return claims;
  }
  return null;
}
