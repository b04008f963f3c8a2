import { control } from "@crm/db";
import { and, asc, between, eq } from "drizzle-orm";
import type { Context } from "hono";
import { activityOf, listKeys } from "../routes/api-key-store";
import { ActivityTable } from "./api-keys-page";
import type { ConsoleEnv } from "./console-env";
import { ownerOf } from "./console-session";
import { Layout } from "./layout";
import { tokens, UsageChart } from "./usage-chart";

/** The usage page: the organization's token ledger of the last 30 UTC days as a chart and a table, and each key's recent activity. */
const dayMs = 86_400_000;
const shownDays = 30;
const recentUses = 5;

export async function showUsage(c: Context<ConsoleEnv>) {
  const today = Date.parse(new Date().toISOString().slice(0, 10));
  const days = Array.from({ length: shownDays }, (_, index) =>
    new Date(today - (shownDays - 1 - index) * dayMs).toISOString().slice(0, 10),
  );
  const db = c.var.controlDb;
  const { tokenUsage } = control;
  const rows = await db
    .select({ day: tokenUsage.day, route: tokenUsage.route, requests: tokenUsage.requests, costUnits: tokenUsage.costUnits })
    .from(tokenUsage)
    .where(
      and(
        eq(tokenUsage.organizationId, c.var.actor.organizationId),
        between(tokenUsage.day, days[0] as string, days.at(-1) as string),
      ),
    )
    .orderBy(asc(tokenUsage.day), asc(tokenUsage.route));
  const byRoute = new Map<string, { requests: number; costUnits: number }>();
  for (const row of rows) {
    const entry = byRoute.get(row.route) ?? { requests: 0, costUnits: 0 };
    entry.requests += row.requests;
    entry.costUnits += row.costUnits;
    byRoute.set(row.route, entry);
  }
  const keys = await listKeys(db, ownerOf(c));
  const activity = await activityOf(
    db,
    keys.map((key) => key.id),
    recentUses,
  );
  return c.html(
    <Layout title="Usage" signedIn={c.var.signedIn}>
      <h2>Tokens per day, last {shownDays} days</h2>
      <UsageChart days={days} rows={rows} />
      <h2>By route</h2>
      <table>
        <thead>
          <tr>
            <th>Route</th>
            <th>Successful requests</th>
            <th>Tokens</th>
          </tr>
        </thead>
        <tbody>
          {[...byRoute]
            .sort((a, b) => b[1].costUnits - a[1].costUnits || a[0].localeCompare(b[0]))
            .map(([route, entry]) => (
              <tr>
                <td>
                  <code>{route}</code>
                </td>
                <td>{entry.requests}</td>
                <td>{tokens(entry.costUnits)}</td>
              </tr>
            ))}
        </tbody>
      </table>
      <h2>Recent activity of your keys</h2>
      {keys.length === 0 && <p class="muted">You have no API keys in this organization.</p>}
      {keys.map((key) => (
        <section data-key-id={key.id}>
          <h3>
            {key.name} <code>{`crm_${key.prefix}_…`}</code>
          </h3>
          <ActivityTable uses={activity.get(key.id) ?? []} />
        </section>
      ))}
    </Layout>,
  );
}
