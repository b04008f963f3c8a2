import { abortAllDurableObjects, evictDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { unique } from "../crm";
import { program, received } from "../receiver";
import { call, eventually } from "../stack";
import { laneOf, workspace } from "../webhook-lanes";

/**
 * The lane's `again` mark restarted at each step (issue 24): a replay that asks for a delivery while
 * its first send is out marks it in the lane's storage, and the lane sends it once more after that
 * send concludes. Wherever the lane restarts (the first send out with the mark set, the second send
 * out, the second attempt's row being written), the delivery ends with exactly two attempts, 1 and
 * 2, both delivered, every request under its one `webhook-id`. An eviction waits for what is in
 * flight, so the receiver then saw exactly two requests; a cut (`abortAllDurableObjects`) may make
 * the lane send what was out again, under the same id. Test configuration: answers time out after
 * 1.5 s (vitest.config.ts), so the receiver's held answers (1 s) are answers, not timeouts.
 */

type Restart = "evict" | "abort";

const steps = [
  { step: "while the first send is out and the mark is set", afterRequests: 1, waitMs: 0 },
  { step: "while the second send is out", afterRequests: 2, waitMs: 0 },
  { step: "while the second attempt's row is being written", afterRequests: 2, waitMs: 1_020 },
] as const;

describe.each<Restart>(["evict", "abort"])("a delivery asked for again while out, its lane restarted (%s)", (how) => {
  for (const { step, afterRequests, waitMs } of steps) {
    it(`${step}: it goes exactly once more, under its webhook-id`, async () => {
      const place = await workspace();
      const path = `/again-${unique()}`;
      // Each send is answered a second later: within the answer timeout, so the lane holds the delivery meanwhile.
      await program(path, [
        { status: 200, delayMs: 1_000 },
        { status: 200, delayMs: 1_000 },
        { status: 200, delayMs: 1_000 },
      ]);
      const webhook = await place.subscribe(path);
      await place.createRecord();
      const [firstSend] = await eventually(
        () => received(path),
        (requests) => requests.length === 1,
        { timeoutMs: 20_000, everyMs: 10 },
      );
      const eventId = (JSON.parse(firstSend?.body as string) as { id: string }).id;
      const replay = await call(`/webhooks/${webhook.id}/replay`, {
        method: "POST",
        key: place.key,
        json: { sinceMs: Date.now() - 60_000 },
      });
      expect(replay.status).toBe(202);
      await eventually(
        () => received(path),
        (requests) => requests.length >= afterRequests,
        { timeoutMs: 20_000, everyMs: 10 },
      );
      await new Promise((resolve) => setTimeout(resolve, waitMs));
      if (how === "evict") await evictDurableObject(laneOf(webhook.id));
      else await abortAllDurableObjects();

      const attemptsOf = async () => (await place.deliveries(webhook.id)).data;
      await eventually(attemptsOf, (attempts) => attempts.filter((attempt) => attempt.status === "delivered").length >= 2, {
        timeoutMs: 30_000,
        everyMs: 500,
      });
      // A later event delivered is the barrier: a third send of the first would have come before its answer was stored.
      const later = await place.createRecord();
      await eventually(
        () => received(path),
        (requests) => requests.some((request) => request.body.includes(later.record.id)),
        { timeoutMs: 20_000, everyMs: 50 },
      );
      const attempts = (await attemptsOf()).filter((attempt) => attempt.eventId === eventId);
      expect(attempts.map(({ attempt, status }) => ({ attempt, status })).sort((a, b) => a.attempt - b.attempt)).toEqual([
        { attempt: 1, status: "delivered" },
        { attempt: 2, status: "delivered" },
      ]);
      const requests = (await received(path)).filter((request) => (JSON.parse(request.body) as { id: string }).id === eventId);
      expect(new Set(requests.map((request) => request.headers["webhook-id"])).size).toBe(1);
      if (how === "evict") expect(requests).toHaveLength(2);
      else expect(requests.length).toBeGreaterThanOrEqual(2);
    }, 90_000);
  }
});
