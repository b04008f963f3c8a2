import { abortAllDurableObjects } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { failureThreshold } from "../../workers/api/src/domain/webhooks/breaker";
import { unique } from "../crm";
import { program, received, until, workspace } from "../webhook-lanes";

/**
 * A lane restarted at each step of its work (issue 24): evicted while a delivery is out, while its
 * attempt rows are being written, while the breaker's probe is out, with an alarm set for a retry,
 * and with a resend due. Afterwards every delivery is delivered or recorded failed with its
 * attempts, none is lost, and each event reached the receiver under one `webhook-id` only. A restart
 * is `abortAllDurableObjects`, as a deploy or a crash: what was in flight is cut, not drained (a
 * graceful eviction waits for it). Test configuration: retries after 1 s (three), answers time out
 * after 1.5 s (vitest.config.ts).
 */

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

describe("a webhook lane restarted", () => {
  it("while the breaker's probe is out: the probe counts as lost, another goes, and everything is delivered", async () => {
    const place = await workspace();
    const path = `/probe-${unique()}`;
    // Five failures open the breaker; the probe (the sixth request) is answered slowly, and the lane restarts meanwhile.
    await program(path, [...Array.from({ length: failureThreshold }, () => ({ status: 503 })), { status: 200, delayMs: 1_200 }]);
    const webhook = await place.subscribe(path);
    for (let i = 0; i < failureThreshold; i++) await place.createRecord();
    await until(
      () => received(path),
      (requests) => requests.length > failureThreshold,
      20_000,
      20,
    );
    await abortAllDurableObjects();

    const { statistics } = await until(
      () => place.deliveries(webhook.id),
      (result) => result.statistics.delivered === failureThreshold,
      25_000,
      500,
    );
    expect(statistics).toEqual({ delivered: failureThreshold, failed: 0, pending: 0, rateLimited: 0 });
    const byEvent = await webhookIdsByEvent(path);
    expect(byEvent.size).toBe(failureThreshold);
    for (const ids of byEvent.values()) expect(ids.size).toBe(1);
    expect(await place.endpointState(webhook.id)).toMatchObject({ status: "healthy", nextAttemptAt: null });
  }, 40_000);
});
