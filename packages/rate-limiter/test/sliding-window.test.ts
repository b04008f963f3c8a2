import { describe, expect, it } from "vitest";
import { type Admission, type AdmissionJournal, SlidingWindowLog } from "../src/sliding-window";

const WINDOW_MS = 60_000;

function fill(log: SlidingWindowLog, count: number, at: number, limit: number): string[] {
  return Array.from({ length: count }, () => {
    const decision = log.take(at, limit, WINDOW_MS);
    if (!decision.token) throw new Error("expected an admission");
    return decision.token;
  });
}

describe("SlidingWindowLog", () => {
  it("peeks at the decision without recording an admission", () => {
    const log = new SlidingWindowLog();
    expect(log.peek(0, 2, WINDOW_MS)).toMatchObject({ allowed: true, remaining: 2, token: null });
    fill(log, 2, 1_000, 2);
    expect(log.peek(5_000, 2, WINDOW_MS)).toEqual({
      allowed: false,
      remaining: 0,
      retryAfterMs: 56_000,
      resetMs: 56_000,
      token: null,
    });
    expect(log.size).toBe(2);
    expect(log.peek(61_000, 2, WINDOW_MS)).toMatchObject({ allowed: true, remaining: 2 });
  });

  it("admits the limit-th request and refuses the next", () => {
    const log = new SlidingWindowLog();
    fill(log, 2, 1_000, 3);
    expect(log.take(1_000, 3, WINDOW_MS)).toMatchObject({ allowed: true, remaining: 0, retryAfterMs: 0 });
    expect(log.take(1_000, 3, WINDOW_MS)).toEqual({
      allowed: false,
      remaining: 0,
      retryAfterMs: WINDOW_MS,
      resetMs: WINDOW_MS,
      token: null,
    });
  });

  it("counts an admission until exactly windowMs after it, then frees its slot", () => {
    const log = new SlidingWindowLog();
    fill(log, 1, 0, 1);
    expect(log.take(WINDOW_MS - 1, 1, WINDOW_MS)).toMatchObject({ allowed: false, retryAfterMs: 1 });
    expect(log.take(WINDOW_MS, 1, WINDOW_MS)).toMatchObject({ allowed: true, remaining: 0, resetMs: WINDOW_MS });
  });

  it("frees slots one by one as admissions spread over time leave the window", () => {
    const log = new SlidingWindowLog();
    for (const at of [0, 10_000, 20_000]) expect(log.take(at, 3, WINDOW_MS).allowed).toBe(true);

    expect(log.take(30_000, 3, WINDOW_MS)).toMatchObject({ allowed: false, retryAfterMs: 30_000 });
    expect(log.take(60_000, 3, WINDOW_MS)).toMatchObject({ allowed: true, remaining: 0, resetMs: 10_000 });
    expect(log.take(60_000, 3, WINDOW_MS)).toMatchObject({ allowed: false, retryAfterMs: 10_000 });
    expect(log.take(70_000, 3, WINDOW_MS)).toMatchObject({ allowed: true, remaining: 0, resetMs: 10_000 });
    expect(log.take(79_999, 3, WINDOW_MS)).toMatchObject({ allowed: false, retryAfterMs: 1 });
  });

  it("reports remaining and the time until the oldest admission leaves", () => {
    const log = new SlidingWindowLog();
    expect(log.take(5_000, 10, WINDOW_MS)).toMatchObject({ allowed: true, remaining: 9, resetMs: WINDOW_MS });
    expect(log.take(20_000, 10, WINDOW_MS)).toMatchObject({ allowed: true, remaining: 8, resetMs: 45_000 });
  });

  it("counts reserved slots until they leave, and waits for the one that frees first", () => {
    const log = new SlidingWindowLog();
    fill(log, 1, 0, 4);
    const reserved = [
      { until: 65_000, slots: 2 },
      { until: 90_000, slots: 1 },
    ];
    expect(log.peek(1_000, 4, WINDOW_MS, reserved)).toMatchObject({ allowed: false, retryAfterMs: 59_000 });
    expect(log.take(60_000, 4, WINDOW_MS, reserved)).toMatchObject({ allowed: true, remaining: 0, resetMs: 5_000 });
    expect(log.take(60_000, 4, WINDOW_MS, reserved)).toMatchObject({ allowed: false, retryAfterMs: 5_000 });
    expect(log.take(65_000, 4, WINDOW_MS, reserved.slice(1))).toMatchObject({ allowed: true, remaining: 1 });
  });

  it("records a past admission in time order, and drops one already out of the window", () => {
    const log = new SlidingWindowLog();
    fill(log, 2, 10_000, 3);
    log.record({ token: "past", at: 5_000 }, 20_000, WINDOW_MS);
    log.record({ token: "gone", at: 1_000 }, 62_000, WINDOW_MS);
    expect(log.size).toBe(3);
    // The recorded admission is the oldest, so it frees the first slot.
    expect(log.take(20_000, 3, WINDOW_MS)).toMatchObject({ allowed: false, retryAfterMs: 45_000 });
    expect(log.count(65_000, WINDOW_MS)).toBe(2);
  });

  it("waits for enough admissions to leave when the limit was lowered", () => {
    const log = new SlidingWindowLog();
    for (const at of [0, 1_000, 2_000, 3_000]) log.take(at, 4, WINDOW_MS);
    // Three of the four must leave before one more fits under a limit of 2; the last goes at 62 000.
    expect(log.take(4_000, 2, WINDOW_MS)).toMatchObject({ allowed: false, retryAfterMs: 58_000 });
  });

  it("keeps its order when the clock steps back", () => {
    const log = new SlidingWindowLog();
    log.take(10_000, 2, WINDOW_MS);
    log.take(9_000, 2, WINDOW_MS);
    expect(log.take(69_999, 2, WINDOW_MS)).toMatchObject({ allowed: false, retryAfterMs: 1 });
    expect(log.take(70_000, 2, WINDOW_MS)).toMatchObject({ allowed: true, remaining: 1 });
  });

  it("stays exact across compaction of many expired admissions", () => {
    const log = new SlidingWindowLog();
    for (let at = 0; at < 1_000; at++) expect(log.take(at * 100, 600, WINDOW_MS).allowed).toBe(true);
    expect(log.size).toBe(600);
    expect(log.take(99_900, 600, WINDOW_MS)).toMatchObject({ allowed: false, retryAfterMs: 100 });
  });

  it("resumes from stored admissions", () => {
    const stored: Admission[] = [
      { token: "b", at: 2_000 },
      { token: "a", at: 1_000 },
    ];
    const log = new SlidingWindowLog(stored);
    expect(log.take(3_000, 2, WINDOW_MS)).toMatchObject({ allowed: false, retryAfterMs: 58_000 });
  });

  it("tells the journal about every admission and expiry", () => {
    const events: string[] = [];
    const journal: AdmissionJournal = {
      admitted: ({ at }) => events.push(`admitted ${at}`),
      expired: (cutoff) => events.push(`expired <= ${cutoff}`),
      givenBack: (token) => events.push(`given back ${token}`),
    };
    const log = new SlidingWindowLog([], journal);
    log.take(0, 2, WINDOW_MS);
    log.take(1_000, 2, WINDOW_MS);
    log.take(61_000, 2, WINDOW_MS);
    expect(events).toEqual(["admitted 0", "admitted 1000", "expired <= 1000", "admitted 61000"]);
  });

  it("gives back an admission by its token, once, and the window counts it no more", () => {
    const log = new SlidingWindowLog();
    const first = log.take(0, 2, WINDOW_MS);
    log.take(1_000, 2, WINDOW_MS);
    expect(log.take(2_000, 2, WINDOW_MS).allowed).toBe(false);
    expect(log.giveBack(first.token as string)).toBe(true);
    expect(log.giveBack(first.token as string)).toBe(false);
    expect(log.take(2_000, 2, WINDOW_MS)).toMatchObject({ allowed: true, remaining: 0 });
  });

  it("rejects a limit or window that cannot admit anything", () => {
    const log = new SlidingWindowLog();
    expect(() => log.take(0, 0, WINDOW_MS)).toThrow(RangeError);
    expect(() => log.take(0, 1.5, WINDOW_MS)).toThrow(RangeError);
    expect(() => log.take(0, 1, 0)).toThrow(RangeError);
  });
});
