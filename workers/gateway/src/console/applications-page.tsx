import { control } from "@crm/db";
import { and, desc, eq, isNull } from "drizzle-orm";
import type { Context } from "hono";
import { revokeGrant } from "../oauth/grants";
import type { ConsoleEnv } from "./console-env";
import { ConsoleProblem } from "./forms";
import { CsrfField, formatTime, Layout } from "./layout";

/** Authorized applications: the user's live OAuth grants, with the client, scopes and organization; revocable. */
const { oauthGrants, oauthClients, organizations } = control;

export async function showApplications(c: Context<ConsoleEnv>) {
  const { signedIn } = c.var;
  const grants = await c.var.controlDb
    .select({
      id: oauthGrants.id,
      clientName: oauthClients.name,
      scopes: oauthGrants.scopes,
      organizationName: organizations.name,
      createdAt: oauthGrants.createdAt,
    })
    .from(oauthGrants)
    .innerJoin(oauthClients, eq(oauthClients.id, oauthGrants.clientId))
    .leftJoin(organizations, eq(organizations.id, oauthGrants.organizationId))
    .where(and(eq(oauthGrants.userId, signedIn.user.id), isNull(oauthGrants.revokedAt)))
    .orderBy(desc(oauthGrants.createdAt));
  return c.html(
    <Layout title="Authorized applications" signedIn={signedIn}>
      {grants.length === 0 ? (
        <p class="muted">No application has access to your account.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th>Application</th>
              <th>Scopes</th>
              <th>Organization</th>
              <th>Authorized</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {grants.map((grant) => (
              <tr data-grant-id={grant.id}>
                <td>{grant.clientName}</td>
                <td>{grant.scopes.join(", ")}</td>
                <td>{grant.organizationName ?? "Chosen per request"}</td>
                <td>{formatTime(grant.createdAt)}</td>
                <td>
                  <form method="post" action={`/console/applications/${grant.id}/revoke`} class="inline">
                    <CsrfField token={signedIn.csrf} />
                    <button type="submit">Revoke</button>
                  </form>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Layout>,
  );
}

/** Revokes one of the user's grants (`revokeGrant` of the OAuth server): refresh stops at once, its access tokens within 60 s. */
export async function revokeApplication(c: Context<ConsoleEnv>) {
  const grantId = c.req.param("grantId") ?? "";
  const db = c.var.controlDb;
  const [grant] = await db
    .select({ id: oauthGrants.id })
    .from(oauthGrants)
    .where(and(eq(oauthGrants.id, grantId), eq(oauthGrants.userId, c.var.signedIn.user.id), isNull(oauthGrants.revokedAt)));
  if (!grant) throw new ConsoleProblem(404, "No such application", "There is no such authorized application.");
  await revokeGrant(db, grant.id, Date.now());
  return c.redirect("/console/applications", 303);
}
