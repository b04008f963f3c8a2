import { describe, expect, it } from "vitest";
import { errorOf } from "./crm";
import { createKey, createOrganization } from "./fixtures";
import { call, eventually } from "./stack";

interface UsageReport {
  from: string;
  to: string;
  data: { date: string; route: string; requests: number; costUnits: number; cost: number }[];
  totals: { requests: number; costUnits: number; cost: number };
}

/** The ledger is written after each response, so tests read it until the expected rows are there. */
async function usage(key: string): Promise<UsageReport> {
  return (await (await call("/usage", { key })).json()) as UsageReport;
}

describe("token costs and GET /usage", () => {
  it("shows the cost of each request in X-Token-Cost, charged on success only", async () => {
    const { key } = await createOrganization();
    const free = await call("/workspaces", { key });
    expect(free.headers.get("x-token-cost")).toBe("0");
    const read = await call("/usage", { key });
    expect(read.status).toBe(200);
    expect(read.headers.get("x-token-cost")).toBe("0.2");
    const failed = await call("/usage?from=nope", { key });
    expect(failed.status).toBe(400);
    expect(failed.headers.get("x-token-cost")).toBe("0");
  });

  it("reports the organization's units per day and route", async () => {
    const { key, organizationId, userId } = await createOrganization();
    const other = await createOrganization();
    await call("/workspaces", { key });
    await call("/workspaces", { key });
    await call("/usage", { key });
    await call("/workspaces?limit=0", { key });
    await call("/workspaces", { key: other.key });
    const today = new Date().toISOString().slice(0, 10);
    const reader = await createKey({ organizationId, ownerId: userId, scopes: ["usage:read"] });
    const workspacesRow = (report: UsageReport) => report.data.find((row) => row.route === "GET /workspaces");
    const report = await eventually(
      () => usage(reader.key),
      (report) => (workspacesRow(report)?.requests ?? 0) >= 2,
    );
    expect(report.to).toBe(today);
    // The 400 is not charged and the other organization's request is not in this ledger.
    expect(workspacesRow(report)).toEqual({ date: today, route: "GET /workspaces", requests: 2, costUnits: 0, cost: 0 });
    const usageRow = report.data.find((row) => row.route === "GET /usage");
    expect(usageRow?.requests).toBeGreaterThanOrEqual(1);
    expect(usageRow?.costUnits).toBe((usageRow?.requests ?? 0) * 20);
    expect(usageRow?.cost).toBe((usageRow?.costUnits ?? 0) / 100);
    expect(report.totals.costUnits).toBe(report.data.reduce((sum, row) => sum + row.costUnits, 0));
  });

  it("validates the date range", async () => {
    const { key } = await createOrganization();
    for (const query of [
      "?from=2026-13-01",
      "?to=2026-02-30",
      "?from=2026-11-02&to=2026-11-01",
      "?from=2020-01-01&to=2026-01-01",
      "?extra=1",
    ]) {
      const response = await call(`/usage${query}`, { key });
      expect(response.status, query).toBe(400);
    }
  });

  it("needs a credential without a workspace limit: the ledger is the whole organization's", async () => {
    const { organizationId, userId, workspaceIds } = await createOrganization({ workspaceCount: 2 });
    const limited = await createKey({ organizationId, ownerId: userId, workspaceIds: [workspaceIds[0] as string] });
    const refused = await call("/usage", { key: limited.key });
    expect(refused.status).toBe(403);
    expect((await errorOf(refused)).code).toBe("workspace_forbidden");
    const unlimited = await createKey({ organizationId, ownerId: userId });
    expect((await call("/usage", { key: unlimited.key })).status).toBe(200);
  });
});
