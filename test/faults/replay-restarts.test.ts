import { abortAllDurableObjects } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { deliveryId } from "../../workers/api/src/domain/webhooks/fanout";
import { unique } from "../crm";
import { seedDispatchedEvents } from "../outbox-history";
import { program, received } from "../receiver";
import { call, eventually } from "../stack";
import { workspace } from "../webhook-lanes";

/**
 * A replay (issue 28) whose lane is cut twice while it works through the range, as a deploy or a
 * crash cuts it (`abortAllDurableObjects`: the sends out end with it). The replay's request handed
 * every delivery over by its answer, so the lane's own storage is what carries the rest: every
 * event of the range reaches the receiver under the `webhook-id` its delivery to this subscription
 * always has, every delivery ends delivered, and only what was out at a cut goes twice. (A graceful
 * eviction waits until the lane has nothing in flight, which for a replay is its end: the cut is the
 * restart that can come midway; test/faults/lane-restarts.test.ts covers evictions.)
 */

describe("a replay whose lane is cut midway", () => {
  it("delivers every event of the range, each under its own webhook-id, and ends every delivery", async () => {
    const count = 240;
    const place = await workspace();
    const path = `/replay-${unique()}`;
    // Answers a little slow: with eight out at a time the replay takes seconds, long enough to restart in it.
    await program(
      path,
      Array.from({ length: count }, () => ({ status: 200, delayMs: 100 })),
    );
    const webhook = await place.subscribe(path);
    const { start, eventIds } = await seedDispatchedEvents({ ...place, objectTypeId: place.objectType.id }, count, webhook.id);

    const response = await call(`/webhooks/${webhook.id}/replay`, {
      method: "POST",
      key: place.key,
      json: { sinceMs: start - 1_000 },
    });
    expect(response.status).toBe(202);
    expect(await response.json()).toEqual({ queued: count });
    // Twice: once early in the range, once past its middle.
    for (const seen of [count / 6, count / 2]) {
      const sofar = await eventually(
        () => received(path),
        (requests) => requests.length >= seen,
        { timeoutMs: 30_000, everyMs: 10 },
      );
      expect(sofar.length).toBeLessThan(count);
      await abortAllDurableObjects();
    }

    // The seeded history shows every delivery delivered once already: the receiver tells when the replay reached each.
    await eventually(
      () => received(path),
      (requests) => new Set(requests.map((request) => request.headers["webhook-id"])).size === count,
      { timeoutMs: 60_000, everyMs: 500 },
    );
    const { statistics } = await eventually(
      () => place.deliveries(webhook.id),
      (result) => result.statistics.delivered === count && result.statistics.pending === 0,
      { timeoutMs: 60_000, everyMs: 500 },
    );
    expect(statistics).toEqual({ delivered: count, failed: 0, pending: 0, rateLimited: 0 });
    const expected = new Map(await Promise.all(eventIds.map(async (id) => [id, await deliveryId(id, webhook.id)] as const)));
    const requests = await received(path);
    const idsByEvent = Map.groupBy(requests, (request) => (JSON.parse(request.body) as { id: string }).id);
    expect(new Set(idsByEvent.keys())).toEqual(new Set(eventIds));
    for (const [eventId, sent] of idsByEvent)
      expect(new Set(sent.map((request) => request.headers["webhook-id"]))).toEqual(new Set([expected.get(eventId)]));
    // A cut sends again at most the eight that were out.
    expect(requests.length).toBeLessThanOrEqual(count + 2 * 8);
  }, 120_000);
});
