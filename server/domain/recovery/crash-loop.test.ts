import { describe, expect, it } from "vitest";
import {
  BACKOFF_MAX_MS,
  backoffDelayMs,
  type CrashLoopState,
  madeProgress,
  onFailure,
  restartsWithoutProgressLimit,
  SUSTAINED_RUNNING_MS,
} from "./crash-loop";

/** Replays failures one after another on an injected clock; returns each restart's time and the failure time. */
function replay(input: { limit: number; failAfterStartMs: number; failures: number }) {
  let now = 0;
  let state: CrashLoopState = { restartsWithoutProgress: 0 };
  const restarts: number[] = [];
  for (let i = 0; i < input.failures; i += 1) {
    const decision = onFailure({ state, progressed: false, limit: input.limit, cause: "exit code 3" });
    if (decision.action === "fail") return { restarts, failedAt: now, reason: decision.reason };
    state = decision.state;
    now += decision.delayMs;
    restarts.push(now);
    now += input.failAfterStartMs;
  }
  return { restarts, failedAt: null, reason: null };
}

describe("crash-loop backoff", () => {
  it("restarts at once first, then waits 10 s doubling to 5 min", () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8, 9].map(backoffDelayMs)).toEqual([
      0, 10_000, 20_000, 40_000, 80_000, 160_000, 300_000, 300_000, 300_000,
    ]);
    expect(backoffDelayMs(50)).toBe(BACKOFF_MAX_MS);
  });

  it("fails a job that never progresses after 5 restarts, within 3 minutes of its first failure", () => {
    const result = replay({ limit: 5, failAfterStartMs: 2000, failures: 100 });
    expect(result.restarts).toHaveLength(5);
    expect(result.failedAt).not.toBeNull();
    expect(result.failedAt ?? Infinity).toBeLessThan(180_000);
    expect(result.reason).toContain("5 restarts in a row without progress");
    expect(result.reason).toContain("exit code 3");
  });

  it("waits at most 5 min between restarts under a high limit", () => {
    const result = replay({ limit: 1000, failAfterStartMs: 1000, failures: 30 });
    expect(result.failedAt).toBeNull();
    expect(result.restarts).toHaveLength(30);
    const gaps = result.restarts.slice(1).map((at, i) => at - (result.restarts[i] ?? 0));
    expect(Math.max(...gaps)).toBe(BACKOFF_MAX_MS + 1000);
  });

  it("turned off (0), HyperPod's own behaviour: every restart at once, never fails", () => {
    const result = replay({ limit: 0, failAfterStartMs: 1000, failures: 30 });
    expect(result.failedAt).toBeNull();
    expect(result.restarts.at(-1)).toBe(29 * 1000);
  });

  it("restarts at once after progress and starts counting again", () => {
    const looping = { restartsWithoutProgress: 4 };
    const after = onFailure({ state: looping, progressed: true, limit: 5, cause: "x" });
    expect(after).toEqual({ action: "restart", delayMs: 0, state: { restartsWithoutProgress: 1 } });
    const without = onFailure({ state: looping, progressed: false, limit: 5, cause: "x" });
    expect(without).toMatchObject({ action: "restart", delayMs: 80_000 });
  });

  it("counts a printed step or sustained running as progress", () => {
    expect(madeProgress({ runningSince: 0, now: 1000, stepPrinted: true })).toBe(true);
    expect(madeProgress({ runningSince: 0, now: SUSTAINED_RUNNING_MS - 1, stepPrinted: false })).toBe(false);
    expect(madeProgress({ runningSince: 0, now: SUSTAINED_RUNNING_MS, stepPrinted: false })).toBe(true);
    expect(madeProgress({ runningSince: null, now: 10 ** 9, stepPrinted: false })).toBe(false);
  });

  it("reads the limit from the annotation and refuses a bad one, naming it", () => {
    expect(restartsWithoutProgressLimit(undefined)).toEqual({ ok: true, limit: 5 });
    expect(restartsWithoutProgressLimit({ "rebound.dev/max-restarts-without-progress": "0" })).toEqual({
      ok: true,
      limit: 0,
    });
    const bad = restartsWithoutProgressLimit({ "rebound.dev/max-restarts-without-progress": "-1" });
    expect(bad.ok).toBe(false);
    expect(bad.ok ? "" : bad.reason).toContain("rebound.dev/max-restarts-without-progress");
  });
});
