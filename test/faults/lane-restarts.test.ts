import { abortAllDurableObjects, evictDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { failureThreshold } from "../../workers/api/src/domain/webhooks/breaker";
import { unique } from "../crm";
import { program, received } from "../receiver";
import { eventually } from "../stack";
import { type Deliveries, laneOf, workspace } from "../webhook-lanes";

/**
 * A lane restarted at each step of its work (issue 24): while a delivery is out, while its attempt
 * rows are being written, while the breaker's probe is out, with an alarm set for a retry, and with
 * resends due. Afterwards every delivery is delivered or recorded failed with its attempts, none is
 * lost, and each event reached the receiver under one `webhook-id` only.
 *
 * Each step runs twice. Once with the lane itself evicted (`evictDurableObject`): an eviction is
 * graceful, as the platform's own of an idle object, so it waits until the lane has nothing in
 * flight (in a Durable Object every fetch and timer is work of its last request, and the eviction
 * waits for those; a busy lane, whose keep-ahead timer runs while anything is due, is evicted once
 * its work is done), then drops its memory; nothing it concluded may be sent again. And once cut by
 * `abortAllDurableObjects`, as a deploy or a crash does: the only way to end what is in flight
 * mid-way (a request out, a probe out, a D1 write), which an eviction by design never does. Test
 * configuration: retries after 1 s (three), answers time out after 1.5 s (vitest.config.ts).
 */

type Restart = "evict" | "abort";

/**
 * An eviction waits for what is in flight, so nothing the lane sent goes again: the receiver saw one
 * request per attempt recorded as sent (an attempt the open breaker held back sends nothing).
 */
async function expectSentOnce(path: string, attempts: Deliveries["data"]): Promise<void> {
  const sent = attempts.filter((attempt) => !attempt.error?.startsWith("Not sent"));
  expect(await received(path)).toHaveLength(sent.length);
}

/** The lane of `webhookId` evicted (once its work in flight is done), or every object cut at once. */
async function restart(how: Restart, webhookId: string): Promise<void> {
  if (how === "evict") await evictDurableObject(laneOf(webhookId));
  else await abortAllDurableObjects();
}

/** Each event's webhook-ids as the receiver saw them: every event must come under one id, however often. */
async function webhookIdsByEvent(path: string): Promise<Map<string, Set<string>>> {
  const byEvent = new Map<string, Set<string>>();
  for (const request of await received(path)) {
    const eventId = (JSON.parse(request.body) as { id: string }).id;
    const ids = byEvent.get(eventId) ?? new Set<string>();
    ids.add(request.headers["webhook-id"] as string);
    byEvent.set(eventId, ids);
  }
  return byEvent;
}

describe.each<Restart>(["evict", "abort"])("a webhook lane restarted (%s)", (how) => {
  const probeEnd = how === "abort" ? "the probe counts as lost and another goes" : "the probe's answer is kept";
  it(`while the breaker's probe is out: ${probeEnd}, and everything is delivered`, async () => {
    const place = await workspace();
    const path = `/probe-${unique()}`;
    // Five failures open the breaker; the probe (the sixth request) is answered slowly, and the lane restarts meanwhile.
    await program(path, [...Array.from({ length: failureThreshold }, () => ({ status: 503 })), { status: 200, delayMs: 1_200 }]);
    const webhook = await place.subscribe(path);
    for (let i = 0; i < failureThreshold; i++) await place.createRecord();
    await eventually(
      () => received(path),
      (requests) => requests.length > failureThreshold,
      { timeoutMs: 20_000, everyMs: 20 },
    );
    await restart(how, webhook.id);

    const { statistics } = await eventually(
      () => place.deliveries(webhook.id),
      (result) => result.statistics.delivered === failureThreshold,
      { timeoutMs: 25_000, everyMs: 500 },
    );
    expect(statistics).toEqual({ delivered: failureThreshold, failed: 0, pending: 0, rateLimited: 0 });
    const byEvent = await webhookIdsByEvent(path);
    expect(byEvent.size).toBe(failureThreshold);
    for (const ids of byEvent.values()) expect(ids.size).toBe(1);
    if (how === "evict") await expectSentOnce(path, (await place.deliveries(webhook.id)).data);
    expect(await place.endpointState(webhook.id)).toMatchObject({ status: "healthy", nextAttemptAt: null });
  }, 40_000);

  /**
   * Each step: what the receiver answers, how many records are written, and when the restart comes
   * (the receiver has seen `afterRequests` requests, plus `waitMs`). Then every delivery must end as
   * `ends` with `attempts` attempts, each event under one webhook-id; after an eviction nothing went
   * twice (`sentOnce`).
   */
  const steps = [
    {
      step: "while deliveries are out",
      responses: [
        { status: 200, delayMs: 800 },
        { status: 200, delayMs: 800 },
        { status: 200, delayMs: 800 },
      ],
      afterRequests: 3,
      waitMs: 0,
      ends: "delivered",
    },
    {
      step: "while their attempt rows are being written",
      responses: [],
      afterRequests: 3,
      waitMs: 20,
      ends: "delivered",
    },
    {
      step: "with an alarm set for their retry",
      responses: [{ status: 503 }, { status: 503 }, { status: 503 }],
      afterRequests: 3,
      waitMs: 300,
      ends: "delivered",
    },
    {
      step: "again while the resends after a restart are out",
      responses: Array.from({ length: 6 }, () => ({ status: 200, delayMs: 800 })),
      afterRequests: 6,
      waitMs: 0,
      restartFirstAfter: 3,
      ends: "delivered",
      // Resends follow only a cut: after an eviction nothing that was out goes again.
      cutOnly: true,
    },
    {
      step: "while an endpoint that always fails runs its schedule",
      responses: Array.from({ length: 12 }, () => ({ status: 500 })),
      afterRequests: 6,
      waitMs: 0,
      ends: "failed",
    },
  ] as const;

  for (const { step, responses, afterRequests, waitMs, ends, ...rest } of steps) {
    if ("cutOnly" in rest && how === "evict") continue;
    it(`${step}: each delivery ends ${ends}, with its attempts, under one webhook-id`, async () => {
      const place = await workspace();
      const path = `/step-${unique()}`;
      await program(path, [...responses]);
      const webhook = await place.subscribe(path);
      for (let i = 0; i < 3; i++) await place.createRecord();
      const restartAfter = async (count: number) => {
        await eventually(
          () => received(path),
          (requests) => requests.length >= count,
          { timeoutMs: 20_000, everyMs: 10 },
        );
        await new Promise((resolve) => setTimeout(resolve, waitMs));
        await restart(how, webhook.id);
      };
      if ("restartFirstAfter" in rest) await restartAfter(rest.restartFirstAfter);
      await restartAfter(afterRequests);

      const { statistics, data } = await eventually(
        () => place.deliveries(webhook.id),
        (result) => result.statistics[ends] === 3,
        { timeoutMs: 30_000, everyMs: 500 },
      );
      expect(statistics).toEqual({ delivered: 0, failed: 0, pending: 0, rateLimited: 0, [ends]: 3 });
      const byDelivery = Map.groupBy(data, (attempt) => attempt.deliveryId);
      expect(byDelivery.size).toBe(3);
      // The newest attempt concludes the delivery; a failed one made its first try and every retry of the schedule (three).
      for (const attempts of byDelivery.values()) {
        expect(attempts[0]?.status).toBe(ends);
        if (ends === "failed") expect(new Set(attempts.map((attempt) => attempt.attempt))).toEqual(new Set([1, 2, 3, 4]));
      }
      const byEvent = await webhookIdsByEvent(path);
      expect(byEvent.size).toBe(3);
      for (const ids of byEvent.values()) expect(ids.size).toBe(1);
      if (how === "evict") await expectSentOnce(path, data);
    }, 60_000);
  }
});
