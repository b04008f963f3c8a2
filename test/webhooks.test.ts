import { env } from "cloudflare:test";
import { apiVersion, type listWebhookDeliveries, type webhookSchema } from "@crm/contracts";
import { regional } from "@crm/db";
import { and, eq, inArray, isNull } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { Webhook } from "standardwebhooks";
import { beforeAll, describe, expect, it } from "vitest";
import { replayShare, reserveTokens, spareTokens } from "../workers/api/src/domain/webhooks/burst";
import { dispatchOutbox } from "../workers/api/src/domain/webhooks/dispatch";
import { checkWebhookUrl } from "../workers/api/src/domain/webhooks/url-safety";
import { createObjectType, type ErrorBody, expectStatus, objectTypesOf, type Parsed, type ResponseOf, unique } from "./crm";
import { createOrganization } from "./fixtures";
import { firstReceived, program, type Received, received, receivedBefore, receiverPath, receiverUrl } from "./receiver";
import { cast, eventually } from "./stack";

type WebhookBody = Parsed<typeof webhookSchema>;
type Deliveries = ResponseOf<typeof listWebhookDeliveries, 200>;

let key: string;
let salesId: string;
let objectTypes: { people: string; companies: string };

beforeAll(async () => {
  const { alice, sales } = await cast();
  key = alice.apiKey;
  salesId = sales.id;
  const objects = await objectTypesOf(key, sales.id);
  objectTypes = { people: objects[0]?.id as string, companies: objects[1]?.id as string };
});

/** Where a test subscribes and writes: Acme's Sales by default, or a workspace of its own. */
interface Place {
  key: string;
  workspaceId: string;
  objectTypeId: string;
}
const sales = (): Place => ({ key, workspaceId: salesId, objectTypeId: objectTypes.people });

/**
 * A fresh organization's workspace with a custom object type. Tests that drain or depend on a
 * workspace's burst bucket use one: every record any test file creates in Sales is delivered to
 * each of its subscriptions, so Sales' bucket is shared with the whole run.
 */
async function isolatedPlace(): Promise<Place> {
  const organization = await createOrganization({ workspaceCount: 1 });
  const workspaceId = organization.workspaceIds[0] as string;
  const objectType = await createObjectType(organization.key, workspaceId);
  return { key: organization.key, workspaceId, objectTypeId: objectType.id };
}

async function subscribe(path: string, body: Record<string, unknown> = {}, place = sales()) {
  return expectStatus<{ webhook: WebhookBody; secret: string }>(201, "/webhooks", {
    method: "POST",
    key: place.key,
    json: { workspaceId: place.workspaceId, url: receiverUrl(path), eventTypes: ["record.created"], ...body },
  });
}

const createPerson = (name: string, place = sales()) =>
  expectStatus<{ record: { id: string } }>(201, "/records", {
    method: "POST",
    key: place.key,
    json: { objectTypeId: place.objectTypeId, fields: { name } },
  });

describe("webhook subscriptions", () => {
  it("are created with a secret shown once, read, listed, updated and deleted", async () => {
    const path = receiverPath();
    const { webhook, secret } = await subscribe(path, { objectTypeIds: [objectTypes.people], description: "CRM sync" });
    expect(secret).toMatch(/^whsec_[0-9a-f]{64}$/);
    expect(webhook).toMatchObject({
      workspaceId: salesId,
      eventTypes: ["record.created"],
      objectTypeIds: [objectTypes.people],
      isActive: true,
      disabledReason: null,
    });
    const read = await expectStatus<{ webhook: WebhookBody }>(200, `/webhooks/${webhook.id}`, { key });
    expect(read.webhook).toEqual({ ...webhook, endpointState: expect.objectContaining({ status: "healthy" }) });
    expect(JSON.stringify(read)).not.toContain(secret);
    const listed = await expectStatus<{ data: WebhookBody[] }>(200, `/webhooks?workspaceId=${salesId}&limit=100`, { key });
    expect(listed.data.map((item) => item.id)).toContain(webhook.id);
    expect(JSON.stringify(listed)).not.toContain(secret);
    const updated = await expectStatus<{ webhook: WebhookBody }>(200, `/webhooks/${webhook.id}`, {
      method: "PATCH",
      key,
      json: { eventTypes: ["record.updated", "record.deleted"], isActive: false },
    });
    expect(updated.webhook).toMatchObject({ eventTypes: ["record.updated", "record.deleted"], isActive: false });
    expect(await expectStatus(200, `/webhooks/${webhook.id}`, { method: "DELETE", key })).toEqual({ deletedId: webhook.id });
    await expectStatus(404, `/webhooks/${webhook.id}`, { key });
  });

  it("list the 14 event types and refuse unknown ones", async () => {
    const { data } = await expectStatus<{ data: { type: string }[] }>(200, "/webhooks/event-types", { key });
    expect(data).toHaveLength(14);
    await expectStatus(400, "/webhooks", {
      method: "POST",
      key,
      json: { workspaceId: salesId, url: "https://hooks.example.com/x", eventTypes: ["record.exploded"] },
    });
    await expectStatus(400, "/webhooks", {
      method: "POST",
      key,
      json: { workspaceId: salesId, url: "https://hooks.example.com/x", eventTypes: [] },
    });
  });

  it("are for admins and owners only", async () => {
    const { bob, carol } = await cast();
    for (const member of [bob, carol]) {
      const error = await expectStatus<ErrorBody>(403, "/webhooks", {
        method: "POST",
        key: member.apiKey,
        json: { workspaceId: salesId, url: "https://hooks.example.com/x", eventTypes: ["record.created"] },
      });
      expect(error.error.code).toBe("forbidden");
      await expectStatus(403, `/webhooks?workspaceId=${salesId}`, { key: member.apiKey });
    }
  });

  it("refuse URLs that could reach inside (SSRF) with 400", async () => {
    for (const url of [
      "http://hooks.example.com/x",
      "https://user:pass@hooks.example.com/x",
      "https://10.0.0.1/x",
      "https://172.16.5.4/x",
      "https://192.168.1.1/x",
      "https://169.254.169.254/latest/meta-data",
      "https://[::ffff:127.0.0.1]/x",
      "https://[fd00::1]/x",
      "https://[fe80::1]/x",
      "https://metadata.google.internal/x",
      "https://intranet/x",
      "ftp://hooks.example.com/x",
    ]) {
      const error = await expectStatus<ErrorBody>(400, "/webhooks", {
        method: "POST",
        key,
        json: { workspaceId: salesId, url, eventTypes: ["record.created"] },
      });
      expect(error.error.details?.[0]?.path, url).toBe("body.url");
    }
    // Loopback receivers are allowed in tests and the dev stack only (WEBHOOKS_ALLOW_LOOPBACK).
    for (const url of [
      "https://127.0.0.1/x",
      "https://2130706433/x",
      "https://0x7f000001/x",
      "https://[::1]/x",
      "https://localhost/x",
      "http://127.0.0.1:9999/x",
    ]) {
      expect(checkWebhookUrl(url, false).ok, url).toBe(false);
    }
    expect(checkWebhookUrl("http://127.0.0.1:9999/x", true).ok).toBe(true);
    expect(checkWebhookUrl("https://hooks.example.com/x", false).ok).toBe(true);
  });
});

describe("deliveries", () => {
  it("deliver exactly the matching events, signed verifiably with the secret as shown", async () => {
    const path = receiverPath();
    const { webhook, secret } = await subscribe(path, { eventTypes: ["record.created"], objectTypeIds: [objectTypes.people] });
    const person = (await createPerson(`Signed ${unique()}`)).record;
    await expectStatus(201, "/records", {
      method: "POST",
      key,
      json: { objectTypeId: objectTypes.companies, fields: { name: "Not a person" } },
    });
    await expectStatus(200, `/records/${person.id}`, { method: "PATCH", key, json: { fields: { job_title: "Not created" } } });
    // A later person is the marker: once it arrived, the filtered events would have arrived too.
    let marker = "";
    const requests = await receivedBefore(path, {
      send: async () => {
        marker = (await createPerson(`Marker ${unique()}`)).record.id;
      },
      isMarker: (request) => request.body.includes(marker),
    });
    expect(requests).toHaveLength(1);
    const [request] = requests as [Received];
    const event = new Webhook(secret).verify(request.body, request.headers) as {
      type: string;
      data: { id: string };
      workspaceId: string;
    };
    expect(event).toMatchObject({ type: "record.created", workspaceId: salesId, data: { id: person.id } });
    expect(request.headers["webhook-id"]).toMatch(/^dlv_/);
    // The sender says who it is, with the version of the API whose events it delivers.
    expect(request.headers["user-agent"]).toBe(`CRM-Webhooks/${apiVersion}`);
    expect(() => new Webhook(`whsec_${"00".repeat(32)}`).verify(request.body, request.headers)).toThrow();
    // The person's and the marker's, each attempt row written moments after its answer.
    const deliveries = await eventually(
      () => expectStatus<Deliveries>(200, `/webhooks/${webhook.id}/deliveries`, { key }),
      (result) => result.statistics.delivered === 2,
    );
    expect(deliveries.statistics).toEqual({ delivered: 2, failed: 0, pending: 0, rateLimited: 0 });
    expect(deliveries.data.find((attempt) => attempt.deliveryId === request.headers["webhook-id"])).toMatchObject({
      status: "delivered",
      responseStatus: 200,
      attempt: 1,
      eventType: "record.created",
    });
  });

  it("sign with both secrets during a rotation", async () => {
    const path = receiverPath();
    const { webhook, secret: old } = await subscribe(path);
    const { secret } = await expectStatus<{ secret: string }>(200, `/webhooks/${webhook.id}/rotate-secret`, {
      method: "POST",
      key,
    });
    expect(secret).not.toBe(old);
    await createPerson(`Rotated ${unique()}`);
    const request = await firstReceived(path);
    expect(request.headers["webhook-signature"]?.split(" ")).toHaveLength(2);
    expect(() => new Webhook(secret).verify(request.body, request.headers)).not.toThrow();
    expect(() => new Webhook(old).verify(request.body, request.headers)).not.toThrow();
  });

  it("retry failures with the same webhook-id, honouring Retry-After", async () => {
    const path = receiverPath();
    const { webhook } = await subscribe(path);
    await program(path, [{ status: 500 }, { status: 429, headers: { "retry-after": "2" } }]);
    await createPerson(`Retried ${unique()}`);
    const requests = await eventually(
      () => received(path),
      (items) => items.length >= 3,
    );
    expect(requests).toHaveLength(3);
    expect(new Set(requests.map((request) => request.headers["webhook-id"])).size).toBe(1);
    const [, retried = 0, honoured = 0] = requests.map((request) => request.at);
    const gap = honoured - retried;
    expect(gap).toBeGreaterThanOrEqual(1900);
    // The lane writes attempt rows in gathered batches, moments after the receiver answered.
    const deliveries = await eventually(
      () => expectStatus<Deliveries>(200, `/webhooks/${webhook.id}/deliveries`, { key }),
      (result) => result.statistics.delivered === 1,
    );
    expect(deliveries.data.map((attempt) => [attempt.attempt, attempt.status, attempt.responseStatus])).toEqual([
      [3, "delivered", 200],
      [2, "retrying", 429],
      [1, "retrying", 500],
    ]);
    expect(deliveries.statistics.delivered).toBe(1);
  }, 20_000);

  it("give up after the last attempt (dead-letter queue, recorded as failed), and 410 disables the subscription", async () => {
    const failing = receiverPath();
    const { webhook } = await subscribe(failing);
    await program(
      failing,
      Array.from({ length: 5 }, () => ({ status: 503 })),
    );
    await createPerson(`Failing ${unique()}`);
    const deliveries = await eventually(
      () => expectStatus<Deliveries>(200, `/webhooks/${webhook.id}/deliveries`, { key }),
      (result) => result.statistics.failed === 1,
    );
    expect(deliveries.data).toHaveLength(4); // the first attempt and three retries of the test schedule
    expect(deliveries.statistics).toEqual({ delivered: 0, failed: 1, pending: 0, rateLimited: 0 });

    const gone = receiverPath();
    const { webhook: goneHook } = await subscribe(gone);
    await program(gone, [{ status: 410 }]);
    await createPerson(`Gone ${unique()}`);
    const disabled = await eventually(
      () => expectStatus<{ webhook: WebhookBody }>(200, `/webhooks/${goneHook.id}`, { key }),
      (result) => !result.webhook.isActive,
    );
    expect(disabled.webhook).toMatchObject({ isActive: false, disabledReason: "gone" });
  }, 20_000);

  it("hold deliveries over the workspace's burst limit back instead of dropping them, counted as rateLimited", async () => {
    const place = await isolatedPlace();
    // Twenty subscriptions, so one record is twenty deliveries at once: the bucket refills a token
    // every 171 ms, and a busy machine may take longer than that between a drain and a delivery.
    const subscriptions = await Promise.all(
      Array.from({ length: 20 }, async () => {
        const path = receiverPath();
        return { path, webhook: (await subscribe(path, {}, place)).webhook };
      }),
    );
    const deliveriesOf = (webhookId: string) =>
      expectStatus<Deliveries>(200, `/webhooks/${webhookId}/deliveries`, { key: place.key });
    // Keep the workspace's bucket empty (through the regional Worker's own object) until a delivery is held.
    const bucket = env.WEBHOOK_BURST_US.get(env.WEBHOOK_BURST_US.idFromName(place.workspaceId));
    await bucket.reserve(350);
    let draining = true;
    const drained = (async () => {
      while (draining) {
        const [waitMs = 0] = await bucket.reserve(1);
        await new Promise((resolve) => setTimeout(resolve, waitMs));
      }
    })();
    await createPerson(`Burst ${unique()}`, place);
    // Found in the region's D1: twenty API reads per poll would run into the route's rate limit.
    const { webhookAttempts } = regional;
    const firstHeld = async () => {
      const [row] = await drizzle(env.US_DB_1)
        .select({ webhookId: webhookAttempts.webhookId })
        .from(webhookAttempts)
        .where(
          and(
            inArray(
              webhookAttempts.webhookId,
              subscriptions.map((subscription) => subscription.webhook.id),
            ),
            eq(webhookAttempts.status, "rate_limited"),
          ),
        )
        .limit(1);
      return subscriptions.find((subscription) => subscription.webhook.id === row?.webhookId);
    };
    // The drain stops whatever happens: a loop left running would drain the bucket under later tests.
    const held = await eventually(firstHeld, (found) => found !== undefined).finally(async () => {
      draining = false;
      await drained;
    });
    if (!held) throw new Error("no delivery was held while the bucket was empty");
    const { path, webhook } = held;
    const deliveries = await eventually(
      () => deliveriesOf(webhook.id),
      (result) => result.statistics.delivered === 1,
    );
    expect(deliveries.statistics).toEqual({ delivered: 1, failed: 0, pending: 0, rateLimited: 1 });
    // A held delivery is given its later slot once, and keeps it.
    expect(deliveries.data.map((attempt) => attempt.status)).toEqual(["delivered", "rate_limited"]);
    expect(await received(path)).toHaveLength(1);
  });
});

describe("the burst bucket", () => {
  it("allows 350 at once, then gives each later delivery its own slot 60/350 s after the previous one", () => {
    const full = reserveTokens({ tokens: 350, at: 0 }, 1_000, 350);
    expect(full.waitsMs.every((wait) => wait === 0)).toBe(true);
    const held = reserveTokens(full.state, 1_000, 3);
    expect(held.waitsMs).toEqual([172, 343, 515]);
    // Those slots are promised: a delivery asking at the first slot's time queues behind all three.
    expect(reserveTokens(held.state, 1_172, 1).waitsMs).toEqual([514]);
    expect(reserveTokens({ tokens: 0, at: 0 }, 60_000, 1).state.tokens).toBe(349);
  });

  it("gives a replay only what live deliveries leave: the share above the live reserve, never a slot ahead", () => {
    const share = replayShare(350);
    expect(share).toBe(22);
    const first = spareTokens({ tokens: 350, at: 0 }, 1_000, 100);
    expect(first.granted).toBe(share);
    // Spent: the next ask gets nothing until a share has refilled (60/350 s a token), and asks again within two seconds.
    const again = spareTokens(first.state, 1_000, 100);
    expect(again).toMatchObject({ granted: 0, retryInMs: 2_000 });
    expect(spareTokens(again.state, 3_000, 100).granted).toBe(11);
    expect(spareTokens(again.state, 1_000 + Math.ceil((share * 60_000) / 350), 100).granted).toBe(share);
    // A live burst right after a replay's grant still finds all but the share at once.
    const live = reserveTokens(first.state, 1_000, 350 - share);
    expect(live.waitsMs.every((wait) => wait === 0)).toBe(true);
    // While live deliveries wait for slots (the bucket below zero), a replay gets nothing.
    const behind = reserveTokens({ tokens: 0, at: 0 }, 0, 10).state;
    expect(spareTokens(behind, 30_000, 100).granted).toBe(0);
    // Asked again no sooner than a quarter second and no later than two seconds, whatever the debt.
    expect(spareTokens({ tokens: -10_000, at: 0 }, 0, 100).retryInMs).toBe(2_000);
    expect(spareTokens({ tokens: 328.5, at: 0 }, 0, 1).retryInMs).toBe(250);
  });
});

describe("at-least-once delivery", () => {
  it("sends outbox events whose request died before dispatching them (the cron sweeper)", async () => {
    const path = receiverPath();
    const { secret } = await subscribe(path);
    const eventId = `evt_${unique()}${unique()}`;
    const createdAt = Date.now();
    const event = {
      id: eventId,
      type: "record.created",
      createdAt,
      organizationId: "org",
      workspaceId: salesId,
      actor: { type: "user", id: "usr_x" },
      data: { id: "rec_swept" },
    };
    // Committed with its change, never queued: what a crash right after the batch leaves behind.
    const { eventOutbox } = regional;
    await drizzle(env.US_DB_1)
      .insert(eventOutbox)
      .values({
        id: eventId,
        organizationId: "org",
        workspaceId: salesId,
        objectTypeId: null,
        type: "record.created",
        payload: JSON.stringify(event),
        createdAt,
        queuedAt: null,
      });
    // The sweeper as the cron runs it a minute later: rows older than 10 s that nobody queued.
    expect(
      await dispatchOutbox({ shard: 1, db: drizzle(env.US_DB_1) }, { EVENTS: env.EVENTS_US }, 10_000, createdAt + 60_000),
    ).toBeGreaterThanOrEqual(1);
    const request = await firstReceived(path);
    expect((new Webhook(secret).verify(request.body, request.headers) as { id: string }).id).toBe(eventId);
    const [swept] = await drizzle(env.US_DB_1)
      .select({ queuedAt: eventOutbox.queuedAt })
      .from(eventOutbox)
      .where(eq(eventOutbox.id, eventId));
    expect(swept?.queuedAt).not.toBeNull();
  });

  it("dispatches an outbox of thousands of events in one go (each claim stays within D1's 100 bound parameters)", async () => {
    const workspaceId = `ws_drain${unique()}`;
    const now = Date.now();
    await env.US_DB_1.prepare(
      `with recursive seq(n) as (select 0 union all select n + 1 from seq where n < 1199)
       insert into event_outbox (id, organization_id, workspace_id, object_type_id, type, payload, created_at, queued_at, claimed_at)
       select ?1 || printf('%04d', n), 'org', ?2, null, 'record.created', json_object('n', n), ?3, null, null from seq`,
    )
      .bind(`evt_drain${unique()}`, workspaceId, now)
      .run();
    expect(await dispatchOutbox({ shard: 1, db: drizzle(env.US_DB_1) }, { EVENTS: env.EVENTS_US })).toBeGreaterThanOrEqual(1200);
    const { eventOutbox } = regional;
    const left = await drizzle(env.US_DB_1)
      .select({ id: eventOutbox.id })
      .from(eventOutbox)
      .where(and(eq(eventOutbox.workspaceId, workspaceId), isNull(eventOutbox.queuedAt)));
    expect(left).toEqual([]);
  });

  it("gathers events into Queue messages by their size as sent: quote-heavy payloads that double when escaped still fit", async () => {
    const workspaceId = `ws_quotes${unique()}`;
    // 2 000 quotes and an emoji each: JSON escaping turns every quote into two characters.
    await env.US_DB_1.prepare(
      `with recursive seq(n) as (select 0 union all select n + 1 from seq where n < 299)
       insert into event_outbox (id, organization_id, workspace_id, object_type_id, type, payload, created_at, queued_at, claimed_at)
       select ?1 || printf('%04d', n), 'org', ?2, null, 'record.created', replace(hex(zeroblob(1000)), '0', '"') || '🎉', ?3, null, null from seq`,
    )
      .bind(`evt_quotes${unique()}`, workspaceId, Date.now())
      .run();
    expect(await dispatchOutbox({ shard: 1, db: drizzle(env.US_DB_1) }, { EVENTS: env.EVENTS_US })).toBeGreaterThanOrEqual(300);
    const left = await drizzle(env.US_DB_1)
      .select({ id: regional.eventOutbox.id })
      .from(regional.eventOutbox)
      .where(and(eq(regional.eventOutbox.workspaceId, workspaceId), isNull(regional.eventOutbox.queuedAt)));
    expect(left).toEqual([]);
  });

  it("sends a delivery queued twice (a batch redelivered after a crash) once while its lane holds it", async () => {
    const path = receiverPath();
    const place = await isolatedPlace();
    const { webhook } = await subscribe(path, {}, place);
    const delivery = {
      shard: 1,
      deliveryId: `dlv_twice${unique()}`,
      webhookId: webhook.id,
      workspaceId: place.workspaceId,
      eventId: `evt_twice${unique()}`,
      eventType: "record.created" as const,
      payload: JSON.stringify({ twice: true }),
      attempt: 1,
      notBefore: 0,
    };
    await env.DELIVERIES_US.sendBatch([{ body: delivery }, { body: delivery }]);
    const deliveries = await eventually(
      () => expectStatus<Deliveries>(200, `/webhooks/${webhook.id}/deliveries`, { key: place.key }),
      (result) => result.statistics.delivered === 1,
    );
    expect(deliveries.data).toHaveLength(1);
    expect(await received(path)).toHaveLength(1);
  });
});
