import { env } from "cloudflare:test";
import { control } from "@crm/db";
import { drizzle } from "drizzle-orm/d1";
import { describe, expect, it } from "vitest";
import { createOrganization } from "./fixtures";
import { casesOf, listOperations, walkCase } from "./list-walk";
import { scenarios } from "./list-walk-data";
import { call } from "./stack";

/**
 * DESIGN.md section 2: every list answers `{ data, pagination }`, takes `limit` and `cursor` and
 * pages over a stable total order. Issue 38: every list operation of the catalogue, with each of its
 * filter parameters (each declared value of an enum, a representative value of the others) and
 * each order it offers, is walked with `limit=1` and `limit=2` over more than two pages: no error,
 * no item twice, none missed, the documented order, the same items as one page of the largest limit.
 * A list or a parameter nobody gave data for fails here, by name (test/list-walk-data.ts).
 */

describe("every list pages with limit and cursor, with each filter and order", () => {
  it("has a way to get data for every list operation of the catalogue", () => {
    const missing = listOperations.map((list) => list.operation.operationId).filter((id) => !(id in scenarios));
    expect(missing, "list operations without a scenario in test/list-walk-data.ts").toEqual([]);
    const stale = Object.keys(scenarios).filter((id) => !listOperations.some((list) => list.operation.operationId === id));
    expect(stale, "scenarios of operations that are not lists of the catalogue").toEqual([]);
  });

  it("usage: the totals of the whole range on a page of one entry", async () => {
    const { key, organizationId } = await createOrganization();
    const today = new Date().toISOString().slice(0, 10);
    const routes = ["GET /crm/objects", "GET /inbox/conversations", "GET /workspaces", "POST /records"];
    await drizzle(env.CONTROL_DB)
      .insert(control.tokenUsage)
      .values(routes.map((route) => ({ organizationId, day: today, route, requests: 2, costUnits: 40 })));
    const first = (await (await call("/usage?limit=1", { key })).json()) as { totals: { requests: number } };
    expect(first.totals.requests).toBeGreaterThanOrEqual(8);
  });

  for (const list of listOperations) {
    const id = list.operation.operationId;
    // Concurrently: each list has an organization of its own, and most of the time goes to waiting on
    // the stack; the writes of the others also move whatever ranks by the whole shard's data.
    // Generous timeout: on two busy cores a list's walk has taken 50 s (15 s on a quiet machine).
    it.concurrent(id, { timeout: 120_000 }, async () => {
      const build = scenarios[id];
      if (!build) throw new Error(`${id}: no scenario in test/list-walk-data.ts, so this list is not walked`);
      const scenario = await build();
      for (const testCase of casesOf(list, scenario)) await walkCase(list, scenario, testCase);
    });
  }
});
