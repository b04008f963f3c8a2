import { env } from "cloudflare:test";
import { insertRowsAsJson, regional, runBatch } from "@crm/db";
import { eq, inArray } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { describe, expect, it } from "vitest";
import { unique } from "./crm";

/**
 * `insertRowsAsJson` writes rows as one statement with one JSON parameter (the webhook lanes write
 * their attempt rows this way). What it stores must equal what drizzle's own insert stores, for
 * every kind of column, far past D1's 100 bound parameters.
 */
describe("insertRowsAsJson", () => {
  const db = drizzle(env.US_DB_1);
  const { webhooks, webhookAttempts } = regional;

  it("stores 300 attempt rows in one statement, nulls and numbers as they were", async () => {
    const deliveryId = `dlv_json${unique()}`;
    const rows = Array.from({ length: 300 }, (_, i) => ({
      id: `att_json${unique()}_${i}`,
      deliveryId,
      attempt: i + 1,
      webhookId: "wh_json",
      eventId: `evt_${i}`,
      eventType: "record.created",
      status: i % 2 === 0 ? ("delivered" as const) : ("retrying" as const),
      responseStatus: i % 2 === 0 ? 200 : null,
      error: i % 2 === 0 ? null : `Receiver answered 5${i % 10}0 — "quoted", ünïcode`,
      durationMs: i,
      nextAttemptAt: i % 2 === 0 ? null : 1_700_000_000_000 + i,
      createdAt: 1_700_000_000_000,
    }));
    await runBatch(db, [insertRowsAsJson(db, webhookAttempts, rows)]);
    const stored = await db.select().from(webhookAttempts).where(eq(webhookAttempts.deliveryId, deliveryId));
    expect(stored.sort((a, b) => a.attempt - b.attempt)).toEqual(rows);
  });

  it("maps JSON and boolean columns as drizzle does", async () => {
    const row = (id: string) => ({
      id,
      workspaceId: "ws_json",
      url: "https://example.com/hook",
      eventTypes: ["record.created", "task.updated"],
      objectTypeIds: [],
      description: null,
      isActive: false,
      disabledReason: null,
      secret: "whsec_x",
      previousSecret: null,
      previousSecretExpiresAt: null,
      createdBy: "usr_json",
      createdAt: 1,
      updatedAt: 2,
    });
    const [viaJson, viaDrizzle] = [`wh_json${unique()}`, `wh_drizzle${unique()}`];
    await runBatch(db, [insertRowsAsJson(db, webhooks, [row(viaJson)]), db.insert(webhooks).values(row(viaDrizzle))]);
    const stored = await db
      .select()
      .from(webhooks)
      .where(inArray(webhooks.id, [viaJson, viaDrizzle]));
    const byId = new Map(stored.map(({ id, ...rest }) => [id, rest]));
    expect(byId.get(viaJson)).toEqual(byId.get(viaDrizzle));
    expect(byId.get(viaJson)?.eventTypes).toEqual(["record.created", "task.updated"]);
    expect(byId.get(viaJson)?.isActive).toBe(false);
  });
});
