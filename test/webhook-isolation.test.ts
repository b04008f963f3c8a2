import { describe, expect, it } from "vitest";
import { afterAttempt, breakerMode, closedBreaker, failureThreshold } from "../workers/api/src/domain/webhooks/breaker";
import { expectStatus, unique } from "./crm";
import { program, received } from "./receiver";
import { eventually } from "./stack";
import { workspace } from "./webhook-lanes";

/**
 * Isolation per endpoint (issue 19, docs/webhooks.md): each subscription's deliveries go through a
 * lane of their own, so a receiver that never answers holds up nobody else, and its own deliveries
 * still run their whole schedule. The test configuration answers time out after 1.5 s and retries
 * come after 1 s, three times (vitest.config.ts).
 */

describe("isolation per endpoint", () => {
  it("delivers another workspace's events while 100 deliveries hang, and every hanging delivery still ends failed on its schedule", async () => {
    const stuck = await workspace();
    const hangingPath = `/hang-${unique()}`;
    const hanging = await Promise.all(Array.from({ length: 5 }, async () => (await stuck.subscribe(hangingPath)).id));
    for (let i = 0; i < 20; i++) await stuck.createRecord();
    // The hanging endpoint has its connections open before the other workspace writes.
    await eventually(
      () => received(hangingPath),
      (requests) => requests.length >= 5,
      { timeoutMs: 60_000 },
    );

    const healthy = await workspace();
    const livePath = `/live-${unique()}`;
    const live = (await healthy.subscribe(livePath)).id;
    for (let i = 0; i < 3; i++) await healthy.createRecord();
    const arrived = await eventually(
      () => received(livePath),
      (requests) => requests.length >= 3,
      { timeoutMs: 10_000 },
    );
    expect(arrived).toHaveLength(3);
    // Through one shared queue they would have waited behind the hanging deliveries' first attempts
    // (80 or more sent before them); here at most each lane's in-flight cap, and a few probes, went first.
    const lastLive = Math.max(...arrived.map((request) => request.at));
    const sentBefore = (await received(hangingPath)).filter((request) => request.at <= lastLive).length;
    expect(sentBefore).toBeLessThan(80);
    // They arrived while the hanging endpoint's deliveries were still running their schedule.
    const meanwhile = await Promise.all(hanging.map((id) => stuck.deliveries(id)));
    expect(meanwhile.reduce((ended, { statistics }) => ended + statistics.delivered + statistics.failed, 0)).toBeLessThan(100);
    expect(await healthy.endpointState(live)).toMatchObject({
      status: "healthy",
      consecutiveFailures: 0,
      lastFailure: null,
    });
    const failing = await eventually(
      () => stuck.endpointState(hanging[0] as string),
      (state) => state.status === "failing",
      { timeoutMs: 30_000, everyMs: 500 },
    );
    expect(failing.lastFailure).toBe("Timed out after 1.5 s");
    expect(failing.consecutiveFailures).toBeGreaterThanOrEqual(1);

    // Nothing lost: each of the 100 deliveries made its four attempts (1 + the three retries) and failed.
    await eventually(
      async () => Promise.all(hanging.map((id) => stuck.deliveries(id))),
      (results) => results.every((result) => result.statistics.failed === 20),
      { timeoutMs: 60_000, everyMs: 4_000 },
    );
    for (const webhookId of hanging) {
      const { statistics, data } = await stuck.deliveries(webhookId);
      expect(statistics).toEqual({ delivered: 0, failed: 20, pending: 0, rateLimited: 0 });
      const byDelivery = Map.groupBy(data, (attempt) => attempt.deliveryId);
      expect(byDelivery.size).toBe(20);
      for (const attempts of byDelivery.values()) {
        expect(attempts.map((attempt) => [attempt.attempt, attempt.status])).toEqual([
          [4, "failed"],
          [3, "retrying"],
          [2, "retrying"],
          [1, "retrying"],
        ]);
        for (const attempt of attempts)
          expect(attempt.error).toMatch(/^(Timed out after 1\.5 s|Not sent: the endpoint failed \d+ times in a row)/);
        // Each retry waited at least its turn of the schedule (1 s, less the 10% jitter), and no attempt came before its time.
        for (const retrying of attempts.filter((attempt) => attempt.status === "retrying"))
          expect((retrying.nextAttemptAt ?? 0) - retrying.createdAt).toBeGreaterThanOrEqual(900);
        for (const [i, later] of attempts.slice(0, -1).entries())
          expect(later.createdAt).toBeGreaterThanOrEqual(attempts[i + 1]?.nextAttemptAt ?? 0);
      }
    }
    // The open breaker held most of them back: far fewer requests reached the endpoint than attempts were made.
    expect((await received(hangingPath)).length).toBeLessThan(400);
    expect((await stuck.endpointState(hanging[0] as string)).status).toBe("failing");
  }, 90_000);

  it("closes the breaker again with one probe when the endpoint recovers, and what waited is delivered", async () => {
    const place = await workspace();
    const path = `/recovering-${unique()}`;
    await program(
      path,
      Array.from({ length: failureThreshold }, () => ({ status: 503 })),
    );
    const webhookId = (await place.subscribe(path)).id;
    for (let i = 0; i < failureThreshold; i++) await place.createRecord();
    const { statistics } = await eventually(
      () => place.deliveries(webhookId),
      (result) => result.statistics.delivered === failureThreshold,
      { timeoutMs: 30_000, everyMs: 500 },
    );
    expect(statistics).toEqual({ delivered: failureThreshold, failed: 0, pending: 0, rateLimited: 0 });
    // Each delivery reached the endpoint twice: its 503, and the delivery after the recovery.
    const requests = await received(path);
    expect(requests).toHaveLength(2 * failureThreshold);
    expect(new Set(requests.map((request) => request.headers["webhook-id"])).size).toBe(failureThreshold);
    expect(await place.endpointState(webhookId)).toMatchObject({
      status: "healthy",
      consecutiveFailures: 0,
      lastFailure: "Receiver answered 503",
      nextAttemptAt: null,
    });
  }, 30_000);

  it("shows a deactivated subscription's endpoint as disabled", async () => {
    const place = await workspace();
    const webhookId = (await place.subscribe(`/off-${unique()}`)).id;
    await expectStatus(200, `/webhooks/${webhookId}`, { method: "PATCH", key: place.key, json: { isActive: false } });
    expect((await place.endpointState(webhookId)).status).toBe("disabled");
  });
});

describe("the circuit breaker", () => {
  const failed = { kind: "failed", error: "Timed out after 15 s", retryAfterMs: null } as const;
  /** The answer timeout and the lane's margin: a probe out longer was lost. */
  const lostAfterMs = 25_000;

  it("opens after five failures in a row, lets one probe through when the wait is over, and doubles the wait after a failed probe", () => {
    let state = closedBreaker(5_000);
    for (let i = 1; i < failureThreshold; i++) state = afterAttempt(state, failed, false, 1_000, 5_000);
    expect(breakerMode(state, 1_000, lostAfterMs)).toBe("closed");
    state = afterAttempt(state, failed, false, 1_000, 5_000);
    expect(state).toMatchObject({ consecutiveFailures: 5, openUntil: 6_000, lastFailure: "Timed out after 15 s" });
    expect(breakerMode(state, 5_999, lostAfterMs)).toBe("open");
    expect(breakerMode(state, 6_000, lostAfterMs)).toBe("probe");
    state = afterAttempt({ ...state, probeSentAt: 6_000 }, failed, true, 21_000, 5_000);
    expect(state).toMatchObject({ openUntil: 31_000, probeWaitMs: 10_000, probeSentAt: null });
    state = afterAttempt({ ...state, probeSentAt: 31_000 }, { kind: "answered" }, true, 31_500, 5_000);
    expect(state).toMatchObject({ consecutiveFailures: 0, openUntil: null, probeWaitMs: 5_000, lastFailureAt: 21_000 });
  });

  it("holds everything while a probe is out, honours a longer Retry-After, and an answer of any kind resets the count", () => {
    const open = afterAttempt(
      { ...closedBreaker(5_000), consecutiveFailures: 4 },
      { ...failed, retryAfterMs: 60_000 },
      false,
      0,
      5_000,
    );
    expect(open.openUntil).toBe(60_000);
    expect(breakerMode({ ...open, probeSentAt: 119_000 }, 120_000, lostAfterMs)).toBe("probing");
    // A probe that never concluded (its object restarted, its continuation lost) is not waited for beyond the timeout and margin.
    expect(breakerMode({ ...open, probeSentAt: 119_000 }, 119_000 + lostAfterMs, lostAfterMs)).toBe("probe");
    const answered = afterAttempt({ ...closedBreaker(5_000), consecutiveFailures: 3 }, { kind: "answered" }, false, 0, 5_000);
    expect(answered.consecutiveFailures).toBe(0);
  });
});
