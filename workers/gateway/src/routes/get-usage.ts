import { ApiError, type operations } from "@crm/contracts";
import { control } from "@crm/db";
import type { RouteHandler } from "@hono/zod-openapi";
import { and, asc, between, eq } from "drizzle-orm";
import type { GatewayAppEnv } from "../env";

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
  if (days < 1)
    throw new ApiError("invalid_request", "`from` must not be after `to`", [{ path: "query.from", message: "After `to`" }]);
  if (days > maxDays) {
    throw new ApiError("invalid_request", `At most ${maxDays} days per request`, [
      { path: "query.from", message: "Range too long" },
    ]);
  }
  const { tokenUsage } = control;
  const rows = await c.var.controlDb
    .select({ date: tokenUsage.day, route: tokenUsage.route, requests: tokenUsage.requests, costUnits: tokenUsage.costUnits })
    .from(tokenUsage)
    .where(and(eq(tokenUsage.organizationId, c.var.actor.organizationId), between(tokenUsage.day, from, to)))
    .orderBy(asc(tokenUsage.day), asc(tokenUsage.route));
  const data = rows.map((row) => ({ ...row, cost: row.costUnits / 100 }));
  const requests = data.reduce((sum, row) => sum + row.requests, 0);
  const costUnits = data.reduce((sum, row) => sum + row.costUnits, 0);
  return c.json({ from, to, data, totals: { requests, costUnits, cost: costUnits / 100 } }, 200);
};
