import { ApiError, uniqueViolation } from "@crm/contracts";
import { control, insertRowsAsJson } from "@crm/db";
import { and, eq, inArray, lt, ne } from "drizzle-orm";
import type { DrizzleD1Database } from "drizzle-orm/d1";
import { z } from "zod";
import { type SignedPush, ssoToleranceSeconds } from "./signature";
import { unclaimableReason } from "./unclaimable-domains";

const { organizations, ssoConnections, ssoDomains, ssoStoreNonces } = control;

/**
 * A DNS name of at least two labels, lower-cased (`Acme.Example` is stored as `acme.example`), that
 * one organization can own: no public suffix, no free-mail domain.
 */
const domainName = z
  .string()
  .max(253)
  .toLowerCase()
  .regex(
    /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?$/,
    "Not a domain name such as acme.example",
  )
  .superRefine((domain, context) => {
    const reason = unclaimableReason(domain);
    if (reason) context.addIssue({ code: "custom", message: reason });
  });

const httpsUrl = z.url({ protocol: /^https$/, error: "Not an https URL" }).max(2048);

const common = {
  organizationId: z.string().min(6).max(64),
  domains: z
    .array(domainName)
    .min(1)
    .max(100)
    .refine((domains) => new Set(domains).size === domains.length, "Each domain once"),
  enforced: z.boolean(),
};

/** What the identity service pushes: SAML names the provider's metadata, OIDC its issuer. */
export const ssoConnectionPush = z.discriminatedUnion("protocol", [
  z.strictObject({ ...common, protocol: z.literal("saml"), metadataUrl: httpsUrl }),
  z.strictObject({ ...common, protocol: z.literal("oidc"), issuer: httpsUrl }),
]);

export type SsoConnectionPush = z.infer<typeof ssoConnectionPush>;

/**
 * Nonces stay this long after their push's timestamp left the tolerance, so a push checked just
 * inside it cannot find its nonce already pruned by another.
 */
const nonceMarginMs = ssoToleranceSeconds * 1000;

/** 409; `domains` names the claimed ones when known (a claim made at the same moment is only seen as the batch failing). */
const domainsClaimed = (domains?: string[]) =>
  new ApiError(
    "conflict",
    "Another organization's SSO connection claims a domain of this push",
    domains?.map((domain) => ({ path: "domains", in: "body" as const, message: `${domain} is claimed by another organization` })),
  );

/**
 * Stores (or replaces) the organization's SSO connection, its domains and the push's nonce in one D1
 * batch: a nonce used before, also by a push running at the same moment, fails the batch on its
 * primary key, so the replay stores nothing and is refused (401); so does a domain another
 * organization holds (409), also one claimed at the same moment. Expired nonces are pruned in the
 * same batch.
 */
export async function storeSsoConnection(db: DrizzleD1Database, push: SsoConnectionPush, signed: SignedPush, nowMs: number) {
  const [organization] = await db
    .select({ id: organizations.id })
    .from(organizations)
    .where(eq(organizations.id, push.organizationId))
    .limit(1);
  if (!organization) throw new ApiError("not_found", "Organization not found");
  // Named in the answer; the batch's primary key is what holds against a concurrent claim.
  const taken = await db
    .select({ domain: ssoDomains.domain })
    .from(ssoDomains)
    .where(and(inArray(ssoDomains.domain, push.domains), ne(ssoDomains.organizationId, push.organizationId)));
  if (taken.length > 0) throw domainsClaimed(taken.map((row) => row.domain));
  const connection = {
    organizationId: push.organizationId,
    protocol: push.protocol,
    domains: push.domains,
    metadataUrl: push.protocol === "saml" ? push.metadataUrl : null,
    issuer: push.protocol === "oidc" ? push.issuer : null,
    enforced: push.enforced,
    updatedAt: nowMs,
  };
  try {
    await db.batch([
      db.delete(ssoStoreNonces).where(lt(ssoStoreNonces.expiresAt, nowMs - nonceMarginMs)),
      db.insert(ssoStoreNonces).values({ nonce: signed.nonce, expiresAt: (signed.timestamp + ssoToleranceSeconds) * 1000 }),
      db.delete(ssoDomains).where(eq(ssoDomains.organizationId, push.organizationId)),
      insertRowsAsJson(
        db,
        ssoDomains,
        push.domains.map((domain) => ({ domain, organizationId: push.organizationId })),
      ),
      db
        .insert(ssoConnections)
        .values({ ...connection, createdAt: nowMs })
        .onConflictDoUpdate({ target: ssoConnections.organizationId, set: connection }),
    ]);
  } catch (error) {
    const violated = uniqueViolation(error)?.table;
    if (violated === "sso_store_nonces")
      throw new ApiError("unauthorized", "This nonce was used before; sign each push with a new one");
    if (violated === "sso_domains") throw domainsClaimed();
    throw error;
  }
  return connection;
}
