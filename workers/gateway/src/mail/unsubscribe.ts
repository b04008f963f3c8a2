import {
  ApiError,
  internalRequestHeader,
  type Operation,
  operations,
  signInternalRequest,
  type UnsubscribeClaims,
  type UnsubscribeLink,
  verifyUnsubscribeLink,
} from "@crm/contracts";
import { control } from "@crm/db";
import { eq } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { html } from "hono/html";
import { contextSecret, type GatewayEnv, regionService } from "../env";

const invalidLink = () =>
  new ApiError("invalid_request", "This unsubscribe link is invalid or has expired", [
    { path: "token", message: "Invalid or expired" },
  ]);

/** The link a token names, if it is valid (signed by the region it names, not expired); null otherwise. */
const verifiedLink = (env: GatewayEnv, token: string) => verifyUnsubscribeLink(token, (region) => contextSecret(env, region));

/** The link a token names; an invalid, forged or expired one is a 400 naming the parameter. */
export async function unsubscribeLinkOf(env: GatewayEnv, token: string): Promise<UnsubscribeLink> {
  const link = await verifiedLink(env, token);
  if (!link) throw invalidLink();
  return link;
}

const unsubscribeOperations: ReadonlySet<string> = new Set([
  operations.showUnsubscribe.operationId,
  operations.confirmUnsubscribe.operationId,
]);

/**
 * The recipient whose valid token an unsubscribe request carries, for its rate limit: the token is a
 * credential of its own (DESIGN.md section 4), so the request meets its recipient's window only. Null
 * for any other operation, and for a missing or invalid token, which is anonymous traffic like any
 * other public read. The handler verifies the token again (an HMAC, cheap) to answer it.
 */
export async function unsubscribingRecipient(env: GatewayEnv, operation: Operation, url: URL): Promise<UnsubscribeLink | null> {
  const token = url.searchParams.get("token");
  if (!unsubscribeOperations.has(operation.operationId) || token === null) return null;
  return verifiedLink(env, token);
}

/**
 * Records the unsubscribe in the organization's region and shard, where its mail is sent from; a
 * repeat changes nothing there. The shard is read now rather than carried in the link, which lives
 * 90 days: an organization moved to another shard meanwhile is still found.
 */
export async function unsubscribe(env: GatewayEnv, link: UnsubscribeLink): Promise<void> {
  const [organization] = await drizzle(env.CONTROL_DB)
    .select({ shard: control.organizations.shard })
    .from(control.organizations)
    .where(eq(control.organizations.id, link.organizationId))
    .limit(1);
  // An organization that no longer exists sends no more mail: its links are void.
  if (!organization) throw invalidLink();
  const claims: UnsubscribeClaims = {
    purpose: "unsubscribe",
    shard: organization.shard,
    organizationId: link.organizationId,
    address: link.address,
    issuedAt: Date.now(),
  };
  const response = await regionService(env, link.region).fetch(`https://api.${link.region}.internal/__internal/unsubscribe`, {
    method: "POST",
    headers: { [internalRequestHeader]: await signInternalRequest(claims, contextSecret(env, link.region)) },
  });
  if (!response.ok) throw new Error(`Unsubscribe failed in region ${link.region} with ${response.status}`);
}

/**
 * The headers of both pages: never cached, never framed (an Unsubscribe button clickjacked from
 * another site), no Referer (the URL holds the token), nothing loaded but the inline style.
 */
export const unsubscribePageHeaders = {
  "cache-control": "no-store",
  "content-security-policy":
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
} as const;

const page = (title: string, body: ReturnType<typeof html>) => html`<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <meta name="robots" content="noindex" />
    <title>${title}</title>
  </head>
  <body style="font-family: system-ui, sans-serif; max-width: 32rem; margin: 4rem auto; padding: 0 1rem">
    <h1>${title}</h1>
    ${body}
  </body>
</html>`;

/** The confirmation page: the form posts the RFC 8058 body to the same link, so the page and mail clients take one path. */
export const confirmationPage = (link: UnsubscribeLink, token: string) =>
  page(
    "Unsubscribe",
    html`<p>Stop all e-mail from this sender to <strong>${link.address}</strong>?</p>
      <form method="post" action="?token=${encodeURIComponent(token)}">
        <input type="hidden" name="List-Unsubscribe" value="One-Click" />
        <button type="submit">Unsubscribe</button>
      </form>`,
  );

export const unsubscribedPage = (link: UnsubscribeLink) =>
  page("You are unsubscribed", html`<p><strong>${link.address}</strong> will receive no more e-mail from this sender.</p>`);
