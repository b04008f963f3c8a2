import { regional } from "@crm/db";
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { unique } from "../crm";
import { regionDb } from "../fixtures";
import { deliver, mailWorkspace, rawMessage } from "../mail";
import { received } from "../receiver";
import { eventually } from "../stack";
import { workspace } from "../webhook-lanes";

const { eventOutbox } = regional;

/**
 * One tenant's data never stops another's events (issue 24, DESIGN.md section 10): a newsletter of
 * 150 KB, or an outbox row too large to send, in the same shard as another tenant's change.
 */

/** How long a webhook may trail its write here: the normal latency is well under a second. */
const normalLatencyMs = 5_000;

/**
 * Another tenant in the same shard (us, shard 1) with a record.created subscription; `change` writes
 * a record and answers how long its webhook trailed the write.
 */
async function otherTenant() {
  const other = await workspace();
  const path = `/other-${unique()}`;
  await other.subscribe(path);
  return {
    async change() {
      const written = Date.now();
      await other.createRecord();
      const requests = await eventually(
        () => received(path),
        (found) => found.length > 0,
        { timeoutMs: normalLatencyMs + 5_000, everyMs: 50 },
      );
      return (requests[0]?.at ?? Number.POSITIVE_INFINITY) - written;
    },
  };
}

describe("the outbox of a shard", () => {
  it("delivers another tenant's change at once after a 150 KB newsletter, whose event names the message without its body", async () => {
    const inbox = await mailWorkspace();
    const other = await otherTenant();
    const newsletter = `${"<p>Our spring collection, in detail.</p>".repeat(3_800)}`;
    expect(newsletter.length).toBeGreaterThan(150_000);
    const delivery = await deliver(
      rawMessage({ to: inbox.mailbox, subject: "Spring newsletter", text: newsletter }),
      inbox.mailbox,
    );
    expect(delivery.rejected).toBeNull();
    const db = regionDb("us");
    const [row] = await db
      .select()
      .from(eventOutbox)
      .where(and(eq(eventOutbox.workspaceId, inbox.workspaceId), eq(eventOutbox.type, "message.received")));
    expect(row?.payload.length).toBeLessThan(65_536);
    const data = (JSON.parse(row?.payload ?? "{}") as { data: Record<string, unknown> }).data;
    expect(data).toMatchObject({ subject: "Spring newsletter", snippet: expect.stringMatching(/^<p>Our spring collection/) });
    expect(data).not.toHaveProperty("text");
    // A minute on, a dispatcher that failed to send it would claim it again, with the rows behind it.
    await db
      .update(eventOutbox)
      .set({ claimedAt: Date.now() - 61_000 })
      .where(eq(eventOutbox.id, row?.id ?? ""));

    expect(await other.change()).toBeLessThan(normalLatencyMs);
  }, 30_000);

  it("sets aside a row too large to send, shows it as a failed delivery with its reason, and sends the rows behind it", async () => {
    const tenant = await workspace();
    const other = await otherTenant();
    const path = `/oversized-${unique()}`;
    const webhook = await tenant.subscribe(path);
    // A row as written before events were bounded: a record event of 200 KB.
    const id = `evt_oversized${unique().replace(/[^0-9a-z]/g, "")}`;
    const now = Date.now();
    const payload = JSON.stringify({
      id,
      type: "record.created",
      createdAt: now,
      organizationId: tenant.organizationId,
      workspaceId: tenant.workspaceId,
      objectTypeId: tenant.objectType.id,
      actor: { type: "user", id: tenant.userId },
      data: { id: "rec_oversized", fields: { notes: "x".repeat(200_000) } },
    });
    const db = regionDb("us");
    await db.insert(eventOutbox).values({
      id,
      organizationId: tenant.organizationId,
      workspaceId: tenant.workspaceId,
      objectTypeId: tenant.objectType.id,
      type: "record.created",
      payload,
      createdAt: now,
      queuedAt: null,
      claimedAt: null,
    });

    expect(await other.change()).toBeLessThan(normalLatencyMs);
    const [row] = await db.select().from(eventOutbox).where(eq(eventOutbox.id, id));
    expect(row?.queuedAt).toBeNull();
    expect(row?.setAsideAt).toEqual(expect.any(Number));
    expect(row?.setAsideReason).toMatch(/^Not delivered: the event is \d+ bytes, over the 65536 an event may have$/);
    const { statistics, data } = await tenant.deliveries(webhook.id);
    expect(statistics).toEqual({ delivered: 0, failed: 1, pending: 0, rateLimited: 0 });
    expect(data[0]).toMatchObject({ eventId: id, attempt: 1, status: "failed", error: row?.setAsideReason });
    expect(await received(path)).toEqual([]);
  }, 30_000);
});
