import { env } from "cloudflare:test";
import { control } from "@crm/db";
import { drizzle } from "drizzle-orm/d1";
import { describe, expect, it } from "vitest";
import { createOrganization } from "./fixtures";
import { call } from "./stack";

/**
 * DESIGN.md section 2: every list answers `{ data, pagination }` and takes `limit` and `cursor`,
 * the integration, usage, event-type and public lists included (`/api-keys`: api-keys-routes.test.ts).
 * Each is walked with the same loop, a page smaller than the list.
 */

interface Page<Item> {
  data: Item[];
  pagination: { cursor: string | null; hasMore: boolean };
}

async function walk<Item>(path: string, limit: number, key?: string): Promise<{ items: Item[]; pages: number }> {
  const items: Item[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const separator = path.includes("?") ? "&" : "?";
    const response = await call(`${path}${separator}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`, {
      key,
    });
    expect(response.status, path).toBe(200);
    const page = (await response.json()) as Page<Item>;
    expect(page.data.length).toBeLessThanOrEqual(limit);
    items.push(...page.data);
    cursor = page.pagination.cursor;
    pages++;
  } while (cursor);
  return { items, pages };
}

describe("every list pages with limit and cursor", () => {
  it("integration connections", async () => {
    const { key, workspaceIds } = await createOrganization({ workspaceCount: 1 });
    const workspaceId = workspaceIds[0] as string;
    const created: string[] = [];
    for (const name of ["Notetaker", "Recorder", "Dialer"]) {
      const response = await call("/integrations/connections", {
        method: "POST",
        key,
        json: { workspaceId, provider: "meeting_notes", name },
      });
      created.push(((await response.json()) as { connection: { id: string } }).connection.id);
    }
    const { items, pages } = await walk<{ id: string }>(`/integrations/connections?workspaceId=${workspaceId}`, 2, key);
    expect(items.map((connection) => connection.id)).toEqual(created);
    expect(pages).toBe(2);
  });

  it("webhook event types", async () => {
    const { key } = await createOrganization();
    const { items, pages } = await walk<{ type: string }>("/webhooks/event-types", 5, key);
    expect(items).toHaveLength(14);
    expect(new Set(items.map((item) => item.type)).size).toBe(14);
    expect(pages).toBe(3);
  });

  it("usage, with the totals of the whole range on every page", async () => {
    const { key, organizationId } = await createOrganization();
    const today = new Date().toISOString().slice(0, 10);
    const routes = ["GET /crm/objects", "GET /inbox/conversations", "GET /workspaces", "POST /records"];
    await drizzle(env.CONTROL_DB)
      .insert(control.tokenUsage)
      .values(routes.map((route) => ({ organizationId, day: today, route, requests: 2, costUnits: 40 })));
    const { items, pages } = await walk<{ route: string }>("/usage", 3, key);
    expect(items.map((item) => item.route).filter((route) => routes.includes(route))).toEqual(routes);
    expect(pages).toBeGreaterThanOrEqual(2);
    const first = (await (await call("/usage?limit=1", { key })).json()) as { totals: { requests: number } };
    expect(first.totals.requests).toBeGreaterThanOrEqual(8);
  });

  it("the public integrations catalogue", async () => {
    const all = (await (await call("/public/integrations/crm")).json()) as Page<{ slug: string }>;
    expect(all.pagination).toEqual({ cursor: null, hasMore: false });
    const { items, pages } = await walk<{ slug: string }>("/public/integrations/crm", 1);
    expect(items.map((item) => item.slug)).toEqual(all.data.map((item) => item.slug));
    expect(pages).toBe(all.data.length);
  });
});
