import { z } from "@hono/zod-openapi";
import { integer } from "../ids";
import { costUnits, defineOperation, jsonResponse } from "../operation";
import { pageQuery, paginationSchema } from "../pagination";

const isoDate = z
  .string()
  .max(10)
  .regex(/^\d{4}-\d{2}-\d{2}$/, "Expected a date as YYYY-MM-DD")
  .refine(
    (value) => !Number.isNaN(Date.parse(`${value}T00:00:00Z`)) && new Date(`${value}T00:00:00Z`).toISOString().startsWith(value),
    "Not a calendar date",
  );

/** A UTC day as answered. */
const isoDay = z
  .string()
  .max(10)
  .regex(/^\d{4}-\d{2}-\d{2}$/);
const count = integer(0, Number.MAX_SAFE_INTEGER);

export const usageEntrySchema = z
  .object({
    date: isoDay.openapi({ description: "UTC day, YYYY-MM-DD", example: "2026-11-23" }),
    route: z.string().max(300).openapi({ description: "Method and path template", example: "GET /crm/objects" }),
    requests: count.openapi({ description: "Successful (2xx) requests" }),
    costUnits: count.openapi({ description: "Token cost in integer units (0.2 = 20)" }),
    cost: z.number().min(0).openapi({ description: "Token cost as displayed (units / 100)" }),
  })
  .openapi("UsageEntry");

export const usageReportSchema = z
  .object({
    from: isoDay,
    to: isoDay,
    data: z.array(usageEntrySchema).max(100),
    pagination: paginationSchema,
    totals: z.object({ requests: count, costUnits: count, cost: z.number().min(0) }),
  })
  .openapi("UsageReport");

export const usageQuerySchema = z
  .object({
    from: isoDate
      .optional()
      .openapi({ param: { name: "from", in: "query" }, description: "First UTC day (inclusive); default 29 days before `to`." }),
    to: isoDate
      .optional()
      .openapi({ param: { name: "to", in: "query" }, description: "Last UTC day (inclusive); default today." }),
    ...pageQuery,
  })
  .strict();

export const getUsage = defineOperation({
  operationId: "getUsage",
  tag: "Usage",
  summary: "Token usage by day and route",
  description:
    "Token cost charged to the organization (successful requests only), per UTC day and route, for at most 366 days: entries by day then route, a page at a time; `totals` cover the whole range on every page. Costs are integer units: reads 20 (0.2), writes 40 (0.4), `GET /workspaces` 0. The ledger covers the whole organization, not single workspaces, so it needs a credential without a workspace limit: a key limited to some workspaces gets 403 `workspace_forbidden`.",
  scope: "usage:read",
  costUnits: costUnits.read,
  mcpTool: "usage_get",
  servedBy: "gateway",
  method: "get",
  path: "/usage",
  request: { query: usageQuerySchema },
  responses: { 200: jsonResponse("Usage of the organization", usageReportSchema) },
});
