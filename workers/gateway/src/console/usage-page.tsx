import { apiKeyActivityLimit } from "@crm/contracts";
import { control } from "@crm/db";
import { and, asc, between, eq } from "drizzle-orm";
import type { Context } from "hono";
import type { Child } from "hono/jsx";
import { activityOf, listKeys } from "../routes/api-key-store";
import { ActivityTable, RouteName, usageOfKey } from "./api-keys-page";
import type { ConsoleEnv } from "./console-env";
import { ownerOf } from "./console-session";
import { ConsoleProblem } from "./forms";
import { maskedKey } from "./key-queries";
import { Layout } from "./layout";
import { readableDate } from "./times";
import { type DailyRouteCost, tokens, UsageChart } from "./usage-chart";

/**
 * The usage page: the organization's token ledger (or one of the user's keys', `token_usage_by_key`)
 * over the last 7, 30 or 90 UTC days, for every route or one: totals, a chart, tables per route and
 * per day, and the keys' latest uses. The filters are a GET form, so a filtered view is a link.
 */
const dayMs = 86_400_000;
const dayRanges = [7, 30, 90] as const;
const defaultDays = 30;
/** Uses shown per key when no key is chosen; a chosen key shows all it keeps. */
const usesPerKey = 5;

interface UsageRow extends DailyRouteCost {
  requests: number;
}

function filtersOf(c: Context<ConsoleEnv>, keyIds: string[]) {
  const days = Number(c.req.query("days") ?? defaultDays);
  if (!dayRanges.some((range) => range === days))
    throw new ConsoleProblem(400, "No such period", `Usage is shown for the last ${dayRanges.join(", ")} days.`);
  const key = c.req.query("key") || null;
  if (key !== null && !keyIds.includes(key))
    throw new ConsoleProblem(404, "No such key", "None of your live keys in this organization has that id.");
  const route = c.req.query("route") || null;
  if (route !== null && route.length > 300) throw new ConsoleProblem(400, "No such route", "A route is at most 300 characters.");
  return { days, key, route };
}

async function ledger(c: Context<ConsoleEnv>, key: string | null, first: string, last: string): Promise<UsageRow[]> {
  const db = c.var.controlDb;
  if (key !== null) {
    const { tokenUsageByKey: byKey } = control;
    return db
      .select({ day: byKey.day, route: byKey.route, requests: byKey.requests, costUnits: byKey.costUnits })
      .from(byKey)
      .where(and(eq(byKey.apiKeyId, key), between(byKey.day, first, last)))
      .orderBy(asc(byKey.day), asc(byKey.route));
  }
  const { tokenUsage } = control;
  return db
    .select({ day: tokenUsage.day, route: tokenUsage.route, requests: tokenUsage.requests, costUnits: tokenUsage.costUnits })
    .from(tokenUsage)
    .where(and(eq(tokenUsage.organizationId, c.var.actor.organizationId), between(tokenUsage.day, first, last)))
    .orderBy(asc(tokenUsage.day), asc(tokenUsage.route));
}

const sumOf = (rows: UsageRow[]) =>
  rows.reduce((sum, row) => ({ requests: sum.requests + row.requests, costUnits: sum.costUnits + row.costUnits }), {
    requests: 0,
    costUnits: 0,
  });

/** Requests and tokens per entry of the period (a UTC day, a route): the page's tables, one shape. */
function UsageTable({
  heading,
  caption,
  entries,
}: {
  heading: string;
  caption?: string;
  entries: { label: Child; requests: number; costUnits: number }[];
}) {
  return (
    <table>
      {caption && <caption class="visually-hidden">{caption}</caption>}
      <thead>
        <tr>
          <th scope="col">{heading}</th>
          <th scope="col" class="number">
            Requests
          </th>
          <th scope="col" class="number">
            Tokens
          </th>
        </tr>
      </thead>
      <tbody>
        {entries.map((entry) => (
          <tr>
            <td>{entry.label}</td>
            <td class="number">{entry.requests}</td>
            <td class="number">{tokens(entry.costUnits)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export async function showUsage(c: Context<ConsoleEnv>) {
  const db = c.var.controlDb;
  const keys = await listKeys(db, ownerOf(c));
  const filters = filtersOf(
    c,
    keys.map((key) => key.id),
  );
  const today = Date.parse(new Date().toISOString().slice(0, 10));
  const days = Array.from({ length: filters.days }, (_, index) =>
    new Date(today - (filters.days - 1 - index) * dayMs).toISOString().slice(0, 10),
  );
  const inPeriod = await ledger(c, filters.key, days[0] as string, days.at(-1) as string);
  const routes = [...new Set(inPeriod.map((row) => row.route))].sort();
  const rows = filters.route === null ? inPeriod : inPeriod.filter((row) => row.route === filters.route);
  const total = sumOf(rows);
  const byRoute = [...Map.groupBy(rows, (row) => row.route)]
    .map(([route, routeRows]) => ({ route, ...sumOf(routeRows) }))
    .sort((a, b) => b.costUnits - a.costUnits || a.route.localeCompare(b.route));
  const byDay = days.map((day) => ({ day, ...sumOf(rows.filter((row) => row.day === day)) }));
  const busiest = byDay.reduce((top, day) => (day.costUnits > top.costUnits ? day : top), byDay[0] ?? { day: "", costUnits: 0 });
  const shownKeys = filters.key === null ? keys : keys.filter((key) => key.id === filters.key);
  const activity = await activityOf(
    db,
    shownKeys.map((key) => key.id),
    filters.key === null ? usesPerKey : apiKeyActivityLimit,
  );
  const chosenKey = keys.find((key) => key.id === filters.key);
  const scope = `${chosenKey ? `key “${chosenKey.name}”` : "the whole organization"}${filters.route ? `, ${filters.route}` : ""}`;
  return c.html(
    <Layout title="Usage" signedIn={c.var.signedIn}>
      <form method="get" action="/console/usage" class="filters" aria-label="Filter usage">
        <label>
          Key
          <select name="key">
            <option value="">Whole organization</option>
            {keys.map((key) => (
              <option value={key.id} selected={key.id === filters.key}>
                {key.name} ({maskedKey(key.prefix)})
              </option>
            ))}
          </select>
        </label>
        <label>
          Route
          <select name="route">
            <option value="">All routes</option>
            {[...new Set([...routes, ...(filters.route ? [filters.route] : [])])].map((route) => (
              <option value={route} selected={route === filters.route}>
                {route}
              </option>
            ))}
          </select>
        </label>
        <label>
          Period
          <select name="days">
            {dayRanges.map((range) => (
              <option value={String(range)} selected={range === filters.days}>{`Last ${range} days`}</option>
            ))}
          </select>
        </label>
        <button type="submit" class="primary">
          Show
        </button>
      </form>
      <h2>
        Last {filters.days} days <span class="count">({scope})</span>
      </h2>
      <dl class="totals">
        <div>
          <dt>Tokens</dt>
          <dd>{tokens(total.costUnits)}</dd>
        </div>
        <div>
          <dt>Successful requests</dt>
          <dd>{total.requests}</dd>
        </div>
        <div>
          <dt>Busiest day</dt>
          <dd>
            {busiest.costUnits > 0 ? (
              <>
                {tokens(busiest.costUnits)} <span class="note">on {readableDate(Date.parse(busiest.day))}</span>
              </>
            ) : (
              "—"
            )}
          </dd>
        </div>
      </dl>
      <UsageChart days={days} rows={rows} />
      <details>
        <summary>The same per day, as a table</summary>
        <UsageTable
          caption="Tokens and successful requests per UTC day"
          heading="UTC day"
          entries={byDay.map((day) => ({ label: day.day, ...day }))}
        />
      </details>
      <h2>
        By route <span class="count">({byRoute.length === 1 ? "1 route" : `${byRoute.length} routes`}, all shown)</span>
      </h2>
      {byRoute.length === 0 ? (
        <p class="muted">No successful requests in this period.</p>
      ) : (
        <UsageTable heading="Route" entries={byRoute.map((entry) => ({ label: <RouteName route={entry.route} />, ...entry }))} />
      )}
      <h2>{chosenKey ? "Uses of this key" : "Latest uses of your keys"}</h2>
      {shownKeys.length === 0 && <p class="muted">You have no API keys in this organization.</p>}
      {shownKeys.map((key) => {
        const uses = (activity.get(key.id) ?? []).filter(
          (use) => !filters.route || `${use.method} ${use.route}` === filters.route,
        );
        return (
          <section class="card" data-key-id={key.id} aria-labelledby={`uses-${key.id}`}>
            <header>
              <h3 id={`uses-${key.id}`}>
                {key.name} <code>{maskedKey(key.prefix)}</code>
              </h3>
              {uses.length > 0 && (
                <span class="count">
                  {chosenKey
                    ? `${uses.length} ${uses.length === 1 ? "use" : "uses"} shown: all kept (the latest ${apiKeyActivityLimit} of a key are kept)`
                    : `latest ${uses.length} shown`}
                </span>
              )}
            </header>
            <ActivityTable uses={uses} caption={`Uses of ${key.name}`} />
            {!chosenKey && uses.length > 0 && (
              <p>
                <a href={usageOfKey(key.id)}>All uses and usage of “{key.name}”</a>
              </p>
            )}
          </section>
        );
      })}
    </Layout>,
  );
}
