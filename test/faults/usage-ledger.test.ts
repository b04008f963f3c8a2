import { env } from "cloudflare:test";
import { control } from "@crm/db";
import { and, eq } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { describe, expect, it } from "vitest";
import { createOrganization } from "../fixtures";
import { call, eventually } from "../stack";

/**
 * The usage ledger when the control D1 refuses its writes for a while (issue 24): a refused batch is
 * retried with back-off, and once the database takes writes again every use is booked, once. The
 * refusal is the real database's: a trigger that aborts every insert into the ledger.
 */

const controlDb = drizzle(env.CONTROL_DB);

const requestsBooked = async (organizationId: string) =>
  (
    await controlDb
      .select({ requests: control.tokenUsage.requests })
      .from(control.tokenUsage)
      .where(and(eq(control.tokenUsage.organizationId, organizationId), eq(control.tokenUsage.route, "GET /workspaces")))
  )[0]?.requests ?? 0;

describe("the usage ledger", () => {
  it("books every use once after the control D1 refused writes for a few seconds, with no request after it came back", async () => {
    const { key, organizationId } = await createOrganization();
    await env.CONTROL_DB.exec(
      "create trigger refuse_usage before insert on token_usage begin select raise(abort, 'refused by the test'); end",
    );
    try {
      for (let i = 0; i < 5; i++) expect((await call("/workspaces", { key })).status).toBe(200);
      // The first flush (after a second) and a retry are refused meanwhile.
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      expect(await requestsBooked(organizationId)).toBe(0);
    } finally {
      await env.CONTROL_DB.exec("drop trigger refuse_usage");
    }
    // No request comes after: the ledger's own retries book them.
    expect(
      await eventually(
        () => requestsBooked(organizationId),
        (booked) => booked >= 5,
        { timeoutMs: 20_000, everyMs: 250 },
      ),
    ).toBe(5);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(await requestsBooked(organizationId)).toBe(5);
  }, 40_000);
});
