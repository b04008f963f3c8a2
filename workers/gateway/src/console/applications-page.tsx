import { control } from "@crm/db";
import { and, desc, eq, inArray, isNotNull, isNull, max } from "drizzle-orm";
import type { Context } from "hono";
import { mcpResource } from "../oauth/resources";
import type { ConsoleEnv } from "./console-env";
import { ConsoleProblem } from "./forms";
import { CsrfField, Layout, Notice } from "./layout";
import { ScopeSummary } from "./scope-areas";
import { DateTime, RelativeTime } from "./times";

/**
 * Authorized applications: the user's live OAuth grants, one card per application with each grant's
 * access, organization, resource, when it was given and when the application last got a token.
 * Revoking an application (after a confirmation page) revokes all its grants of this user at once.
 */
const { oauthGrants, oauthClients, oauthRefreshTokens, organizations } = control;

async function liveGrants(c: Context<ConsoleEnv>) {
  const db = c.var.controlDb;
  const grants = await db
    .select({
      id: oauthGrants.id,
      clientId: oauthGrants.clientId,
      clientName: oauthClients.name,
      registeredVia: oauthClients.registeredVia,
      scopes: oauthGrants.scopes,
      resource: oauthGrants.resource,
      organizationName: organizations.name,
      createdAt: oauthGrants.createdAt,
    })
    .from(oauthGrants)
    .innerJoin(oauthClients, eq(oauthClients.id, oauthGrants.clientId))
    .leftJoin(organizations, eq(organizations.id, oauthGrants.organizationId))
    .where(and(eq(oauthGrants.userId, c.var.signedIn.user.id), isNull(oauthGrants.revokedAt)))
    .orderBy(desc(oauthGrants.createdAt));
  // Access tokens are verified without a storage read, so the last token issued (code or refresh) is the last use the server sees.
  const issued =
    grants.length === 0
      ? []
      : await db
          .select({ grantId: oauthRefreshTokens.grantId, at: max(oauthRefreshTokens.createdAt) })
          .from(oauthRefreshTokens)
          .where(
            inArray(
              oauthRefreshTokens.grantId,
              grants.map((grant) => grant.id),
            ),
          )
          .groupBy(oauthRefreshTokens.grantId);
  const lastIssued = new Map(issued.map((row) => [row.grantId, row.at]));
  return grants.map((grant) => ({ ...grant, lastUsedAt: lastIssued.get(grant.id) ?? null }));
}

type Grant = Awaited<ReturnType<typeof liveGrants>>[number];

const latest = (grants: Grant[]) =>
  grants.reduce<number | null>(
    (at, grant) => (grant.lastUsedAt !== null && (at === null || grant.lastUsedAt > at) ? grant.lastUsedAt : at),
    null,
  );

function ApplicationCard({ grants, origin }: { grants: Grant[]; origin: string }) {
  const [first] = grants;
  if (!first) return null;
  return (
    <article class="card" data-client-id={first.clientId} aria-labelledby={`app-${first.clientId}`}>
      <header>
        <h3 id={`app-${first.clientId}`}>{first.clientName}</h3>
        <span class="count">
          {grants.length === 1 ? "1 grant" : `${grants.length} grants`} · last active{" "}
          <RelativeTime at={latest(grants)} empty="never" />
        </span>
      </header>
      {first.registeredVia === "dynamic" && <p class="muted">This application registered itself: its name is not verified.</p>}
      {grants.map((grant) => (
        <dl class="facts grant" data-grant-id={grant.id}>
          <dt>Access</dt>
          <dd>
            <ScopeSummary granted={grant.scopes} />
          </dd>
          <dt>Organization</dt>
          <dd>{grant.organizationName ?? "Any of yours, chosen per request"}</dd>
          <dt>For</dt>
          <dd>{grant.resource === mcpResource(origin) ? "MCP server" : "REST API"}</dd>
          <dt>Allowed</dt>
          <dd>
            <DateTime at={grant.createdAt} />
          </dd>
          <dt>Last active</dt>
          <dd>
            <RelativeTime at={grant.lastUsedAt} empty="Never" />
          </dd>
        </dl>
      ))}
      <div class="actions">
        <a
          class="button danger"
          href={`/console/applications/${first.clientId}/revoke`}
          aria-label={`Revoke access of ${first.clientName}…`}
        >
          Revoke access…
        </a>
      </div>
    </article>
  );
}

export async function showApplications(c: Context<ConsoleEnv>) {
  const { signedIn } = c.var;
  const applications = [...Map.groupBy(await liveGrants(c), (grant) => grant.clientId).values()];
  const revokedId = c.req.query("revoked");
  const [revoked] = revokedId
    ? await c.var.controlDb
        .select({ name: oauthClients.name })
        .from(oauthGrants)
        .innerJoin(oauthClients, eq(oauthClients.id, oauthGrants.clientId))
        .where(
          and(eq(oauthGrants.clientId, revokedId), eq(oauthGrants.userId, signedIn.user.id), isNotNull(oauthGrants.revokedAt)),
        )
        .limit(1)
    : [];
  return c.html(
    <Layout title="Authorized applications" signedIn={signedIn}>
      {revoked && (
        <Notice>
          {revoked.name} no longer has access to your account: it cannot get new tokens, and the ones it holds stop working within
          a minute.
        </Notice>
      )}
      <p class="count">
        {applications.length === 1
          ? "1 application has access to your account (shown below)."
          : `${applications.length} applications have access to your account${applications.length > 0 ? " (all shown below)" : ""}.`}
      </p>
      {applications.map((grants) => (
        <ApplicationCard grants={grants} origin={new URL(c.req.url).origin} />
      ))}
    </Layout>,
  );
}

const noSuchApplication = () =>
  new ConsoleProblem(404, "No such application", "No application with that id has access to your account.");

export async function confirmRevokeApplication(c: Context<ConsoleEnv>) {
  const clientId = c.req.param("clientId") ?? "";
  const grants = (await liveGrants(c)).filter((grant) => grant.clientId === clientId);
  const [first] = grants;
  if (!first) throw noSuchApplication();
  const scopes = [...new Set(grants.flatMap((grant) => grant.scopes))];
  return c.html(
    <Layout title={`Revoke access of ${first.clientName}?`} signedIn={c.var.signedIn}>
      <div class="card confirm">
        <p>It can now:</p>
        <ScopeSummary granted={scopes} />
        <p class="warning">
          {first.clientName} will stop working with your account: it cannot get new tokens from now on, and the tokens it holds
          are refused within a minute ({grants.length === 1 ? "1 grant" : `${grants.length} grants`}). To use it again you would
          allow it again.
        </p>
        <form method="post" action={`/console/applications/${clientId}/revoke`} class="actions">
          <CsrfField token={c.var.signedIn.csrf} />
          <button type="submit" class="danger">
            Revoke access
          </button>
          <a class="button" href="/console/applications">
            Cancel
          </a>
        </form>
      </div>
    </Layout>,
  );
}

/** Revokes every live grant of the user to one application, in one statement: refresh stops at once, its access tokens within 60 s. */
export async function revokeApplication(c: Context<ConsoleEnv>) {
  const clientId = c.req.param("clientId") ?? "";
  const revoked = await c.var.controlDb
    .update(oauthGrants)
    .set({ revokedAt: Date.now() })
    .where(and(eq(oauthGrants.clientId, clientId), eq(oauthGrants.userId, c.var.signedIn.user.id), isNull(oauthGrants.revokedAt)))
    .returning({ id: oauthGrants.id });
  if (revoked.length === 0) throw noSuchApplication();
  return c.redirect(`/console/applications?revoked=${encodeURIComponent(clientId)}`, 303);
}
