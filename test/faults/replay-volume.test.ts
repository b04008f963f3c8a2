import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { deliveryId } from "../../workers/api/src/domain/webhooks/fanout";
import { seedDispatchedEvents } from "../outbox-history";
import { type Received, received, receiverPath } from "../receiver";
import { call, eventually } from "../stack";
import { workspace } from "../webhook-lanes";

/**
 * A replay of thousands of events, at the raised burst limit of this project (the limit itself is
 * test/webhook-operations.test.ts's): every event once under its own `webhook-id`, and another
 * workspace's live deliveries keep their pace meanwhile.
 */
describe("a replay of 2 000 events", () => {
  it("replays 2 000 events with their webhook-ids while another workspace's live deliveries keep their pace", async () => {
    const replayed = await workspace();
    const path = receiverPath();
    const webhook = await replayed.subscribe(path);
    // History already delivered once: in the outbox and marked queued, as after a dispatch.
    const { start, eventIds } = await seedDispatchedEvents(
      { ...replayed, objectTypeId: replayed.objectType.id },
      2_000,
      webhook.id,
    );
    const live = await workspace();
    const livePath = receiverPath();
    await live.subscribe(livePath);
    /** From a record's creation to its delivery at the receiver, for the live workspace. */
    const liveLatency = async () => {
      const before = (await received(livePath)).length;
      const sent = Date.now();
      await live.createRecord();
      const requests = await eventually(
        () => received(livePath),
        (items) => items.length > before,
      );
      return (requests.at(-1) as Received).at - sent;
    };
    const idle = [];
    for (let i = 0; i < 3; i++) idle.push(await liveLatency());

    const response = await call(`/webhooks/${webhook.id}/replay`, {
      method: "POST",
      key: replayed.key,
      json: { sinceMs: start - 1000 },
    });
    expect(response.status).toBe(202);
    expect(await response.json()).toEqual({ queued: 2_000 });
    const during = [];
    for (let i = 0; i < 3; i++) during.push(await liveLatency());
    const all = await eventually(
      () => received(path),
      (items) => items.length >= 2_000,
      { timeoutMs: 90_000, everyMs: 250 },
    );
    expect(all).toHaveLength(2_000);
    // Each with the delivery id its event had for this subscription.
    const expected = new Set(await Promise.all(eventIds.map((id) => deliveryId(id, webhook.id))));
    expect(new Set(all.map((request) => request.headers["webhook-id"]))).toEqual(expected);
    const sample = all[1_234] as Received;
    expect(() => new Webhook(webhook.secret).verify(sample.body, sample.headers)).not.toThrow();
    // The live workspace was not held behind the replay: its worst delivery stays within a second of its idle worst.
    expect(Math.max(...during)).toBeLessThan(Math.max(...idle) + 1_000);
  }, 120_000);
});
