import { ApiError, type operations } from "@crm/contracts";
import { control } from "@crm/db";
import { paginate } from "@crm/db/pagination";
import type { RouteHandler } from "@hono/zod-openapi";
import { and, between, eq, sql } from "drizzle-orm";
import { gatewayConfig } from "../config";
import type { GatewayAppEnv } from "../env";
import { listCursorSecret } from "../identity/identity-secret";

const dayMs = 86_400_000;
const maxDays = 366;
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * `GET /usage`: the organization's token-usage ledger for a range of UTC days. The ledger is kept per
 * organization and route, not per workspace, so a credential limited to some workspaces would read
 * the usage of the others: it is refused (403 `workspace_forbidden`), an unlimited one is needed.
 */
export const getUsage: RouteHandler<(typeof operations.getUsage)["route"], GatewayAppEnv> = async (c) => {
  if (c.var.actor.workspaceIds !== null)
    throw new ApiError(
      "workspace_forbidden",
      "A credential limited to some workspaces cannot read the organization's usage; use one without a workspace limit",
    );
  const query = c.req.valid("query");
  const to = query.to ?? isoDay(Date.now());
  const from = query.from ?? isoDay(Date.parse(to) - 29 * dayMs);
  const days = (Date.parse(to) - Date.parse(from)) / dayMs + 1;
  if (days < 1) throw new ApiError("invalid_request", "`from` must not be after `to`", [{ path: "from", message: "After `to`" }]);
  if (days > maxDays) {
    throw new ApiError("invalid_request", `At most ${maxDays} days per request`, [{ path: "from", message: "Range too long" }]);
  }
  const { tokenUsage } = control;
  const inRange = and(eq(tokenUsage.organizationId, c.var.actor.organizationId), between(tokenUsage.day, from, to));
  type UsageRow = { date: string; route: string; requests: number; costUnits: number };
  const [page, [totals]] = await Promise.all([
    paginate<UsageRow>(
      {
        scope: `usage:${c.var.actor.organizationId}:${from}:${to}`,
        limit: query.limit,
        cursor: query.cursor,
        order: [
          { column: tokenUsage.day, direction: "asc", valueIn: (row) => row.date },
          { column: tokenUsage.route, direction: "asc", valueIn: (row) => row.route },
        ],
        fetch: ({ after, orderBy, limit }) =>
          c.var.controlDb
            .select({
              date: tokenUsage.day,
              route: tokenUsage.route,
              requests: tokenUsage.requests,
              costUnits: tokenUsage.costUnits,
            })
            .from(tokenUsage)
            .where(and(inRange, after))
            .orderBy(...orderBy)
            .limit(limit),
      },
      await listCursorSecret(gatewayConfig(c.env).identitySecret),
    ),
    // The totals cover the whole range, whichever page this is.
    c.var.controlDb
      .select({
        requests: sql<number>`coalesce(sum(${tokenUsage.requests}), 0)`,
        costUnits: sql<number>`coalesce(sum(${tokenUsage.costUnits}), 0)`,
      })
      .from(tokenUsage)
      .where(inRange),
  ]);
  const data = page.data.map((row) => ({ ...row, cost: row.costUnits / 100 }));
  const requests = totals?.requests ?? 0;
  const costUnits = totals?.costUnits ?? 0;
  return c.json({ from, to, data, pagination: page.pagination, totals: { requests, costUnits, cost: costUnits / 100 } }, 200);
};
