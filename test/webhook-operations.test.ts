import { type listWebhookDeliveries, testWebhook } from "@crm/contracts";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { burstCapacity, replayShare } from "../workers/api/src/domain/webhooks/burst";
import { bodyOf, createObjectType, type ErrorBody, errorOf, expectStatus, type ResponseOf, unique } from "./crm";
import { createOrganization } from "./fixtures";
import { seedDispatchedEvents } from "./outbox-history";
import { firstReceived, program, type Received, received, receivedBefore, receiverPath, receiverUrl } from "./receiver";
import { call, eventually } from "./stack";
import { laneOf } from "./webhook-lanes";

type Deliveries = ResponseOf<typeof listWebhookDeliveries, 200>;

/** A fresh organization's workspace with an object type: its burst bucket and events are its own. */
async function place() {
  const organization = await createOrganization({ workspaceCount: 1 });
  const workspaceId = organization.workspaceIds[0] as string;
  const objectType = await createObjectType(organization.key, workspaceId);
  return { ...organization, workspaceId, objectTypeId: objectType.id };
}
type Place = Awaited<ReturnType<typeof place>>;

const subscribe = (where: Place, path: string) =>
  expectStatus<{ webhook: { id: string }; secret: string }>(201, "/webhooks", {
    method: "POST",
    key: where.key,
    json: { workspaceId: where.workspaceId, url: receiverUrl(path), eventTypes: ["record.created"] },
  });

const createRecord = (where: Place) =>
  expectStatus<{ record: { id: string } }>(201, "/records", {
    method: "POST",
    key: where.key,
    json: { objectTypeId: where.objectTypeId, fields: { name: `Vendor ${unique()}` } },
  });

const post = (path: string, key: string, json?: unknown, headers: Record<string, string> = {}) =>
  call(path, { method: "POST", key, headers, ...(json === undefined ? {} : { json }) });

/** A test delivery to the subscription, recognized by its webhook-id: the marker of a "nothing else arrived" check. */
function testDeliveryMarker(where: Place, webhookId: string) {
  let deliveryId = "";
  return {
    send: async () => {
      const response = await post(`/webhooks/${webhookId}/test`, where.key, undefined, {
        "idempotency-key": `marker-${unique()}`,
      });
      deliveryId = (await bodyOf(response, testWebhook, 202)).delivery.deliveryId;
    },
    isMarker: (request: Received) => request.headers["webhook-id"] === deliveryId,
  };
}

/**
 * What `path` received once the subscription's lane holds nothing more (sent, its attempt rows
 * written): the "nothing else arrived" check for replays, whose deliveries all reach the lane by
 * the replay's answer and go after live ones, so a live marker could overtake them.
 */
async function receivedOnceSent(webhookId: string, path: string) {
  await eventually(
    () => laneOf(webhookId).heldEventIds(),
    (held) => held.length === 0,
    { timeoutMs: 20_000 },
  );
  return received(path);
}

const deliveriesOf = (where: Place, webhookId: string) =>
  expectStatus<Deliveries>(200, `/webhooks/${webhookId}/deliveries?limit=100`, { key: where.key });

describe("POST /webhooks/{webhookId}/test", () => {
  it("sends a signed webhook.test event to that subscription only, shown in its deliveries", async () => {
    const where = await place();
    const path = receiverPath();
    const other = receiverPath();
    const { webhook, secret } = await subscribe(where, path);
    await subscribe(where, other);
    const response = await post(`/webhooks/${webhook.id}/test`, where.key);
    expect(response.status).toBe(202);
    const { delivery } = await bodyOf(response, testWebhook, 202);
    expect(delivery).toMatchObject({ webhookId: webhook.id, eventType: "webhook.test", attempt: 1, status: "queued" });
    const request = await firstReceived(path);
    const event = new Webhook(secret).verify(request.body, request.headers) as {
      id: string;
      type: string;
      workspaceId: string;
      data: { webhookId: string };
    };
    expect(event).toMatchObject({ id: delivery.eventId, type: "webhook.test", workspaceId: where.workspaceId });
    expect(event.data.webhookId).toBe(webhook.id);
    expect(request.headers["webhook-id"]).toBe(delivery.deliveryId);
    const deliveries = await eventually(
      () => deliveriesOf(where, webhook.id),
      (result) => result.statistics.delivered === 1,
    );
    expect(deliveries.data[0]).toMatchObject({ deliveryId: delivery.deliveryId, eventType: "webhook.test", status: "delivered" });
    expect(await received(other)).toEqual([]);
    // Not one of the 14 triggers: the events feed never lists it.
    const feed = await expectStatus<{ data: unknown[] }>(200, `/events?workspaceId=${where.workspaceId}`, { key: where.key });
    expect(feed.data).toEqual([]);
    await expectStatus(404, `/events/${delivery.eventId}`, { key: where.key });
  });

  it("is one delivery under one Idempotency-Key, even sent twice at once", async () => {
    const where = await place();
    const path = receiverPath();
    const { webhook } = await subscribe(where, path);
    const headers = { "idempotency-key": `test-${unique()}` };
    const responses = await Promise.all([1, 2].map(() => post(`/webhooks/${webhook.id}/test`, where.key, undefined, headers)));
    const statuses = responses.map((response) => response.status).sort();
    expect([
      [202, 202],
      [202, 409],
    ]).toContainEqual(statuses);
    // Another test delivery is the marker: a second delivery of the first would have arrived before it.
    expect(await receivedBefore(path, testDeliveryMarker(where, webhook.id))).toHaveLength(1);
  });

  it("refuses an inactive subscription with 409 and the reason, and malformed input with 400", async () => {
    const where = await place();
    const { webhook } = await subscribe(where, receiverPath());
    await expectStatus(200, `/webhooks/${webhook.id}`, { method: "PATCH", key: where.key, json: { isActive: false } });
    for (const [path, json] of [
      [`/webhooks/${webhook.id}/test`, undefined],
      [`/webhooks/${webhook.id}/replay`, { sinceMs: Date.now() - 1000 }],
      [`/webhooks/${webhook.id}/deliveries/dlv_00000000000000000000000000/redeliver`, undefined],
    ] as const) {
      const response = await post(path, where.key, json);
      expect(response.status, path).toBe(409);
      const body = (await response.json()) as ErrorBody & { error: { details: { reason: string } } };
      expect(body.error.code).toBe("webhook_disabled");
      expect(body.error.details.reason).toBe("Deactivated with isActive: false");
    }
    await expectStatus(200, `/webhooks/${webhook.id}`, { method: "PATCH", key: where.key, json: { isActive: true } });
    const day = 24 * 60 * 60 * 1000;
    for (const json of [
      { sinceMs: Date.now() - 31 * day },
      { sinceMs: Date.now(), untilMs: Date.now() - 1000 },
      { sinceMs: "yesterday" },
      { sinceMs: Date.now() - 1000, extra: true },
      {},
    ]) {
      const response = await post(`/webhooks/${webhook.id}/replay`, where.key, json);
      expect(response.status, JSON.stringify(json)).toBe(400);
    }
    expect((await post(`/webhooks/${webhook.id}/test`, where.key, { unexpected: 1 })).status).toBe(400);
    expect((await post(`/webhooks/${webhook.id}/deliveries/not-a-delivery/redeliver`, where.key)).status).toBe(400);
    expect((await post(`/webhooks/${webhook.id}/deliveries/dlv_00000000000000000000000000/redeliver`, where.key)).status).toBe(
      404,
    );
  });
});

describe("POST /webhooks/{webhookId}/deliveries/{deliveryId}/redeliver", () => {
  it("sends a failed delivery again, with the same webhook-id, as its next attempt", async () => {
    const where = await place();
    const path = receiverPath();
    const { webhook, secret } = await subscribe(where, path);
    // The test schedule is three retries a second apart: four failures end the delivery.
    await program(
      path,
      Array.from({ length: 4 }, () => ({ status: 500 })),
    );
    await createRecord(where);
    const failed = await eventually(
      () => deliveriesOf(where, webhook.id),
      (result) => result.statistics.failed === 1,
    );
    const first = failed.data.at(-1) as Deliveries["data"][number];
    expect(failed.data).toHaveLength(4);
    // The receiver is fixed (it answers 200 from now on): redeliver.
    const response = await post(`/webhooks/${webhook.id}/deliveries/${first.deliveryId}/redeliver`, where.key);
    expect(response.status).toBe(202);
    const { delivery } = await bodyOf(response, testWebhook, 202);
    expect(delivery).toMatchObject({ deliveryId: first.deliveryId, attempt: 5, status: "queued", eventType: "record.created" });
    const requests = await eventually(
      () => received(path),
      (items) => items.length === 5,
    );
    expect(new Set(requests.map((request) => request.headers["webhook-id"]))).toEqual(new Set([first.deliveryId]));
    const last = requests.at(-1) as Received;
    expect(new Webhook(secret).verify(last.body, last.headers)).toMatchObject({ id: delivery.eventId });
    const after = await eventually(
      () => deliveriesOf(where, webhook.id),
      (result) => result.statistics.delivered === 1,
    );
    expect(after.data[0]).toMatchObject({ deliveryId: first.deliveryId, attempt: 5, status: "delivered", responseStatus: 200 });
  }, 30_000);

  it("refuses a delivery still waiting for its retry (409), and another subscription's delivery (404)", async () => {
    const where = await place();
    const path = receiverPath();
    const { webhook } = await subscribe(where, path);
    await program(path, [{ status: 503, headers: { "retry-after": "120" } }]);
    await createRecord(where);
    const waiting = await eventually(
      () => deliveriesOf(where, webhook.id),
      (result) => result.statistics.pending === 1,
    );
    const id = waiting.data[0]?.deliveryId as string;
    const response = await post(`/webhooks/${webhook.id}/deliveries/${id}/redeliver`, where.key);
    expect(response.status).toBe(409);
    expect((await errorOf(response)).code).toBe("delivery_pending");
    const { webhook: sibling } = await subscribe(where, receiverPath());
    expect((await post(`/webhooks/${sibling.id}/deliveries/${id}/redeliver`, where.key)).status).toBe(404);
  });
});

/**
 * A subscription that delivered one event to `before`, then had its url PATCHed to `after`, and
 * delivered the next event (`first`) there. The first delivery made its lane read the subscription
 * with the old url, so the second shows the PATCH applied from its answer on.
 */
async function deliveredThenMoved() {
  const where = await place();
  const before = receiverPath();
  const after = receiverPath();
  const { webhook } = await subscribe(where, before);
  await createRecord(where);
  await eventually(
    () => received(before),
    (items) => items.length === 1,
  );
  await expectStatus(200, `/webhooks/${webhook.id}`, { method: "PATCH", key: where.key, json: { url: receiverUrl(after) } });
  await createRecord(where);
  const [first] = await eventually(
    () => received(after),
    (items) => items.length === 1,
  );
  return { where, webhook, before, after, first };
}

describe("PATCH /webhooks/{webhookId} url", () => {
  it("applies from its answer on: an event written right after goes to the new url", async () => {
    const { before } = await deliveredThenMoved();
    expect(await received(before)).toHaveLength(1);
  });
});

describe("POST /webhooks/{webhookId}/replay", () => {
  it("replays once under one Idempotency-Key, even sent twice at once", async () => {
    const where = await place();
    const path = receiverPath();
    const { webhook } = await subscribe(where, path);
    for (let i = 0; i < 3; i++) await createRecord(where);
    await eventually(
      () => received(path),
      (items) => items.length === 3,
    );
    const headers = { "idempotency-key": `replay-${unique()}` };
    const body = { sinceMs: Date.now() - 60_000 };
    const responses = await Promise.all([1, 2].map(() => post(`/webhooks/${webhook.id}/replay`, where.key, body, headers)));
    const answered = responses.filter((response) => response.status === 202);
    expect(answered.length).toBeGreaterThanOrEqual(1);
    expect(responses.every((response) => response.status === 202 || response.status === 409)).toBe(true);
    for (const response of answered) expect(await response.json()).toEqual({ queued: 3 });
    // Everything a replay queues is in the lane by its answer: once the lane holds nothing, all was sent.
    const all = await receivedOnceSent(webhook.id, path);
    expect(all).toHaveLength(6);
    // The three events again, each with the webhook-id its first delivery had.
    const ids = all.map((request) => request.headers["webhook-id"]);
    expect(ids.slice(3).sort()).toEqual(ids.slice(0, 3).sort());
  });

  it("replays a delivery whose send is still out: it goes once more when that send ends, under its webhook-id", async () => {
    const where = await place();
    const path = receiverPath();
    await program(path, [{ status: 200, delayMs: 1000 }]);
    const { webhook } = await subscribe(where, path);
    await createRecord(where);
    // The first send reached the receiver, which answers a second later (within the answer timeout): the lane still holds the delivery.
    await eventually(
      () => received(path),
      (items) => items.length === 1,
    );
    const response = await post(`/webhooks/${webhook.id}/replay`, where.key, { sinceMs: Date.now() - 60_000 });
    expect(response.status).toBe(202);
    expect(await response.json()).toEqual({ queued: 1 });
    const all = await eventually(
      () => received(path),
      (items) => items.length === 2,
    );
    expect(all).toHaveLength(2);
    expect(all[1]?.headers["webhook-id"]).toBe(all[0]?.headers["webhook-id"]);
    const { data } = await eventually(
      () => deliveriesOf(where, webhook.id),
      (deliveries) => deliveries.data.filter((attempt) => attempt.status === "delivered").length === 2,
    );
    expect(data.map((attempt) => [attempt.attempt, attempt.status]).sort()).toEqual([
      [1, "delivered"],
      [2, "delivered"],
    ]);
  });

  it("replays only what the subscription was delivered, never what its later filters match", async () => {
    const where = await place();
    const path = receiverPath();
    const { webhook } = await expectStatus<{ webhook: { id: string } }>(201, "/webhooks", {
      method: "POST",
      key: where.key,
      json: { workspaceId: where.workspaceId, url: receiverUrl(path), eventTypes: ["record.deleted"] },
    });
    await createRecord(where);
    const deleted = await createRecord(where);
    await expectStatus(200, `/records/${deleted.record.id}`, { method: "DELETE", key: where.key });
    const [deletion] = await eventually(
      () => received(path),
      (items) => items.length === 1,
    );
    await expectStatus(200, `/webhooks/${webhook.id}`, {
      method: "PATCH",
      key: where.key,
      json: { eventTypes: ["record.created"] },
    });
    const response = await post(`/webhooks/${webhook.id}/replay`, where.key, { sinceMs: Date.now() - 60_000 });
    expect(response.status).toBe(202);
    // The deletion alone: the two creations were never its deliveries.
    expect(await response.json()).toEqual({ queued: 1 });
    const all = await receivedOnceSent(webhook.id, path);
    expect(all.map((request) => request.headers["webhook-id"])).toEqual([
      deletion?.headers["webhook-id"],
      deletion?.headers["webhook-id"],
    ]);
    expect(JSON.parse(all[1]?.body ?? "{}")).toMatchObject({ type: "record.deleted" });
  });

  it("after a url change replays only what was delivered after it, to the new url", async () => {
    const { where, webhook, before, after, first } = await deliveredThenMoved();
    const response = await post(`/webhooks/${webhook.id}/replay`, where.key, { sinceMs: Date.now() - 60_000 });
    expect(await response.json()).toEqual({ queued: 1 });
    const all = await receivedOnceSent(webhook.id, after);
    expect(all.map((request) => request.headers["webhook-id"])).toEqual([
      first?.headers["webhook-id"],
      first?.headers["webhook-id"],
    ]);
    expect(await received(before)).toHaveLength(1);
  });

  it("sends a replay at the burst limit's pace, after live deliveries, one replay at a time, charged per delivery", async () => {
    const where = await place();
    const path = receiverPath();
    const { webhook } = await subscribe(where, path);
    const count = 120;
    const { start, eventIds } = await seedDispatchedEvents(where, count, webhook.id);
    const seeded = new Set(eventIds);
    /** What reached the receiver of the replay (the live record below reaches it too). */
    const replayed = async () =>
      (await received(path)).filter((request) => seeded.has((JSON.parse(request.body) as { id: string }).id));
    const started = Date.now();
    const response = await post(`/webhooks/${webhook.id}/replay`, where.key, { sinceMs: start - 1000 });
    expect(response.status).toBe(202);
    expect(await response.json()).toEqual({ queued: count });
    expect(response.headers.get("x-token-cost")).toBe(String(count * 0.4));

    // A second replay waits for the first: 409 with how many of its deliveries still wait.
    const second = await post(`/webhooks/${webhook.id}/replay`, where.key, { sinceMs: start - 1000 });
    expect(second.status).toBe(409);
    const refused = (await second.json()) as { error: { code: string; details: { waiting: number } } };
    expect(refused.error).toMatchObject({ code: "replay_in_progress", details: { waiting: expect.any(Number) } });

    // A live delivery of the same workspace goes while the replay still has deliveries waiting.
    const livePath = receiverPath();
    await subscribe(where, livePath);
    await createRecord(where);
    await eventually(
      () => received(livePath),
      (requests) => requests.length === 1,
    );
    expect((await replayed()).length).toBeLessThan(count);

    // Never more than the spare share of a full bucket and what it refilled since (350 a minute):
    // a slow machine only sends fewer.
    const bound = (at: number) => replayShare(burstCapacity) + Math.ceil(((at - started) * burstCapacity) / 60_000) + 1;
    const all = await eventually(
      async () => {
        const requests = await replayed();
        expect(requests.length).toBeLessThanOrEqual(bound(Date.now()));
        return requests;
      },
      (requests) => requests.length === count,
      { timeoutMs: 60_000, everyMs: 250 },
    );
    for (const [i, request] of all.entries()) expect(i + 1).toBeLessThanOrEqual(bound(request.at));
    // Done: the next replay starts.
    await eventually(
      () => post(`/webhooks/${webhook.id}/replay`, where.key, { sinceMs: Date.now() - 1000 }),
      (next) => next.status === 202,
    );
  }, 90_000);
});

describe("POST /webhooks: the workspace's limit", () => {
  it("holds at most 50 subscriptions, even when the last ones are created at once", async () => {
    const where = await place();
    for (let n = 0; n < 47; n++) await subscribe(where, receiverPath());
    const racing = await Promise.all(
      Array.from({ length: 6 }, () =>
        post("/webhooks", where.key, {
          workspaceId: where.workspaceId,
          url: receiverUrl(receiverPath()),
          eventTypes: ["record.created"],
        }),
      ),
    );
    expect(racing.map((response) => response.status).sort()).toEqual([201, 201, 201, 409, 409, 409]);
    const refused = racing.find((response) => response.status === 409) as Response;
    expect((await errorOf(refused)).code).toBe("conflict");
    const listed = await expectStatus<{ data: unknown[] }>(200, `/webhooks?workspaceId=${where.workspaceId}&limit=100`, {
      key: where.key,
    });
    expect(listed.data).toHaveLength(50);
  });
});
