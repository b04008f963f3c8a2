import { env } from "cloudflare:test";
import { regional } from "@crm/db";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import type { RegionEnv } from "../workers/api/src/env";
import regionalWorker from "../workers/api/src/index";
import { leastFilledShard } from "../workers/gateway/src/organizations/placement";
import { createObjectType, expectStatus, unique } from "./crm";
import { countRows, createOrganization, regionDb } from "./fixtures";
import { deliver, rawMessage } from "./mail";
import { received, receiverUrl } from "./receiver";
import { cast, eventually } from "./stack";

/**
 * Data-plane shards: an organization's rows live in one D1 of its region, the one the gateway signs
 * into the actor context, and every path into a region (API operations, inbound mail, queues, the
 * cron) reaches that shard only. The us region has two shards in tests as in dev.
 */

/** An organization on `shard` of the us region with a workspace, and an object type and a record made through the API. */
async function tenant(shard: number) {
  const organization = await createOrganization({ shard, workspaceCount: 1 });
  const workspaceId = organization.workspaceIds[0] as string;
  const objectType = await createObjectType(organization.key, workspaceId);
  const { record } = await expectStatus<{ record: { id: string } }>(201, "/records", {
    method: "POST",
    key: organization.key,
    json: { objectTypeId: objectType.id, fields: { name: `Customer of shard ${shard}` } },
  });
  return { ...organization, workspaceId, objectTypeId: objectType.id, recordId: record.id };
}

type Tenant = Awaited<ReturnType<typeof tenant>>;

describe("data-plane shards of a region", () => {
  it("keep each organization's rows in its own shard's database and in no other", async () => {
    const [first, second] = await Promise.all([tenant(1), tenant(2)]);
    for (const [own, other] of [
      [first, second],
      [second, first],
    ] as const) {
      for (const [table, where] of [
        [regional.workspaces, eq(regional.workspaces.id, own.workspaceId)],
        [regional.objectTypes, eq(regional.objectTypes.id, own.objectTypeId)],
        [regional.records, eq(regional.records.id, own.recordId)],
        [regional.eventOutbox, eq(regional.eventOutbox.workspaceId, own.workspaceId)],
      ] as const) {
        expect(await countRows("us", table, where, own.shard)).toBeGreaterThan(0);
        expect(await countRows("us", table, where, other.shard)).toBe(0);
      }
    }
  });

  it("let no organization reach another shard's data: its ids are 404 and lists never mix", async () => {
    const [first, second] = await Promise.all([tenant(1), tenant(2)]);
    const expectOwnOnly = async (own: Tenant, other: Tenant) => {
      await expectStatus(404, `/records/${other.recordId}`, { key: own.key });
      await expectStatus(404, `/crm/objects/${other.objectTypeId}/fields`, { key: own.key });
      await expectStatus(404, `/records?objectTypeId=${other.objectTypeId}`, { key: own.key });
      const workspaces = await expectStatus<{ data: { id: string }[] }>(200, "/workspaces", { key: own.key });
      expect(workspaces.data.map((workspace) => workspace.id)).toEqual([own.workspaceId]);
      const records = await expectStatus<{ data: { id: string }[] }>(200, `/records?objectTypeId=${own.objectTypeId}`, {
        key: own.key,
      });
      expect(records.data.map((record) => record.id)).toEqual([own.recordId]);
      await expectStatus(200, `/records/${own.recordId}`, { key: own.key });
    };
    await expectOwnOnly(first, second);
    await expectOwnOnly(second, first);
  });

  it("deliver the second shard's events to its subscriptions, from the request and from the cron sweeper", async () => {
    const place = await tenant(2);
    const path = `/shard-${unique()}`;
    await expectStatus(201, "/webhooks", {
      method: "POST",
      key: place.key,
      json: { workspaceId: place.workspaceId, url: receiverUrl(path), eventTypes: ["record.created"] },
    });
    // Queued after the write, fanned out and delivered by the region's consumers, each reading shard 2.
    const { record } = await expectStatus<{ record: { id: string } }>(201, "/records", {
      method: "POST",
      key: place.key,
      json: { objectTypeId: place.objectTypeId, fields: { name: "Delivered from shard 2" } },
    });
    const delivered = await eventually(
      () => received(path),
      (items) => items.length >= 1,
    );
    expect(delivered.map((item) => (JSON.parse(item.body) as { data: { id: string } }).data.id)).toEqual([record.id]);

    // An event a crash left in shard 2's outbox a minute ago (the subscription is older): the cron,
    // sweeping every shard, sends it.
    const eventId = `evt_${unique()}${unique()}`;
    const createdAt = Date.now() - 60_000;
    await regionDb("us", 2)
      .update(regional.webhooks)
      .set({ createdAt: createdAt - 60_000 })
      .where(eq(regional.webhooks.workspaceId, place.workspaceId));
    await regionDb("us", 2)
      .insert(regional.eventOutbox)
      .values({
        id: eventId,
        organizationId: place.organizationId,
        workspaceId: place.workspaceId,
        objectTypeId: place.objectTypeId,
        type: "record.created",
        payload: JSON.stringify({
          id: eventId,
          type: "record.created",
          createdAt,
          organizationId: place.organizationId,
          workspaceId: place.workspaceId,
          actor: { type: "user", id: place.userId },
          data: { id: "rec_swept" },
        }),
        createdAt,
        queuedAt: null,
      });
    const regionEnv = { REGION: "us", DB_1: env.US_DB_1, DB_2: env.US_DB_2, EVENTS: env.EVENTS_US } as unknown as RegionEnv;
    const controller = { scheduledTime: Date.now(), cron: "* * * * *", noRetry: () => {} } as ScheduledController;
    await regionalWorker.scheduled(controller, regionEnv);
    const [swept] = await regionDb("us", 2)
      .select({ queuedAt: regional.eventOutbox.queuedAt })
      .from(regional.eventOutbox)
      .where(eq(regional.eventOutbox.id, eventId));
    expect(swept?.queuedAt).not.toBeNull();
    const afterSweep = await eventually(
      () => received(path),
      (items) => items.length >= 2,
    );
    expect(afterSweep.map((item) => (JSON.parse(item.body) as { id: string }).id)).toContain(eventId);
  });

  it("store inbound mail for a mailbox of the second shard there", async () => {
    const { initech } = await cast();
    expect(initech.shard).toBe(2);
    const messageId = `${unique()}${unique()}@customer.example`;
    const mailbox = initech.workspaces[0]?.mailbox as string;
    expect(await deliver(rawMessage({ to: mailbox, messageId: `<${messageId}>` }), mailbox)).toEqual({ rejected: null });
    const stored = eq(regional.messages.messageIdHeader, messageId);
    expect(await countRows("us", regional.messages, stored, 2)).toBe(1);
    expect(await countRows("us", regional.messages, stored, 1)).toBe(0);
  });
});

describe("placing a new organization", () => {
  it("chooses the shard with the fewest organizations, the lowest on a tie", () => {
    expect(leastFilledShard([1, 2], new Map([[1, 3]]))).toBe(2);
    expect(
      leastFilledShard(
        [1, 2],
        new Map([
          [1, 1],
          [2, 4],
        ]),
      ),
    ).toBe(1);
    expect(
      leastFilledShard(
        [1, 2, 3],
        new Map([
          [1, 2],
          [2, 2],
          [3, 2],
        ]),
      ),
    ).toBe(1);
    // A shard just added (nobody on it yet) fills first; counts of shards no longer listed are ignored.
    expect(
      leastFilledShard(
        [1, 2, 3],
        new Map([
          [1, 5],
          [2, 5],
          [9, 0],
        ]),
      ),
    ).toBe(3);
    expect(() => leastFilledShard([], new Map())).toThrow();
  });

  it("put the demo's Acme and Initech on different us shards, Globex on the eu one", async () => {
    const { acme, initech, globex } = await cast();
    expect([acme.shard, initech.shard, globex.shard]).toEqual([1, 2, 1]);
  });
});
