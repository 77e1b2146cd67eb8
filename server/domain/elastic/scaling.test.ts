import { describe, expect, it } from "vitest";
import {
  BACKOFF_MAX_MS,
  backoffMs,
  decideScaling,
  initialMemory,
  restarted,
  type ScalingInput,
  type ScalingMemory,
  type ScalingTimers,
  scaled,
  scalingFailed,
  scalingTimers,
} from "./scaling";

const SIZES = [2, 4, 6, 8];
const timers: ScalingTimers = { scalingTimeoutMs: 60_000, snoozeMs: 120_000, faultyScaleDownMs: 30_000 };
const input = (over: Partial<ScalingInput>): ScalingInput => ({
  now: 1_000_000,
  sizes: SIZES,
  admitted: 2,
  preemptedTo: null,
  faulty: null,
  ...over,
});

/** Runs the machine over successive observations, carrying the memory, as the operator does. */
function run(memory: ScalingMemory, steps: Partial<ScalingInput>[]) {
  const decisions = [];
  let current = memory;
  for (const step of steps) {
    const decision = decideScaling(current, input(step), timers);
    decisions.push(decision);
    current = decision.memory;
  }
  return decisions;
}

describe("scale-up", () => {
  it("waits scalingTimeoutInSeconds with the larger size admitted, then scales to the largest admitted", () => {
    const [first, during, last] = run(initialMemory(2), [
      { now: 0, admitted: 4 },
      { now: 59_999, admitted: 7 },
      { now: 60_000, admitted: 7 },
    ]);
    expect(first).toMatchObject({
      kind: "hold",
      ask: 8,
      until: 60_000,
      why: "stabilising before a scale-up",
    });
    expect(during).toMatchObject({ kind: "hold", until: 60_000 });
    expect(last).toMatchObject({ kind: "scale", to: 6, reason: "ScaleUp" });
  });
  it("a break in the admitted capacity starts the stabilisation again", () => {
    const decisions = run(initialMemory(2), [
      { now: 0, admitted: 4 },
      { now: 30_000, admitted: 2 },
      { now: 40_000, admitted: 4 },
      { now: 60_000, admitted: 4 },
      { now: 100_000, admitted: 4 },
    ]);
    expect(decisions.map((d) => d.kind)).toEqual(["hold", "hold", "hold", "hold", "scale"]);
  });
  it("at max: holds with nothing to do and asks for nothing more", () => {
    const [decision] = run(initialMemory(8), [{ now: 0, admitted: 8 }]);
    expect(decision).toEqual({ kind: "hold", ask: 8, until: null, why: null, memory: initialMemory(8) });
  });
  it("minimum stability: no scale-up within scalingTimeoutInSeconds of the last scaling", () => {
    const memory = scaled(initialMemory(2), 4, 0);
    const [blocked, stabilising, scale] = run(memory, [
      { now: 10_000, admitted: 8 },
      { now: 60_000, admitted: 8 },
      { now: 120_000, admitted: 8 },
    ]);
    expect(blocked).toMatchObject({
      kind: "hold",
      ask: 4,
      until: 60_000,
      why: "stable since the last scaling",
    });
    expect(stabilising).toMatchObject({ kind: "hold", until: 120_000 });
    expect(scale).toMatchObject({ kind: "scale", to: 8 });
  });
  it("snooze: no scale-up and no capacity asked for within scaleUpSnoozeTimeInSeconds of a restart", () => {
    const memory = restarted(initialMemory(2), 0);
    const [snoozed] = run(memory, [{ now: 119_999, admitted: 8 }]);
    expect(snoozed).toMatchObject({ kind: "hold", ask: 2, until: 120_000, why: "snoozed after a restart" });
    const [after] = run(memory, [{ now: 120_000, admitted: 8 }]);
    expect(after).toMatchObject({ kind: "hold", ask: 8, until: 180_000 });
  });
  it("no snooze when scaleUpSnoozeTimeInSeconds is 0", () => {
    const memory = restarted(initialMemory(2), 0);
    const decision = decideScaling(memory, input({ now: 1, admitted: 4 }), { ...timers, snoozeMs: 0 });
    expect(decision).toMatchObject({ kind: "hold", why: "stabilising before a scale-up" });
  });
});

describe("failed scalings back off exponentially", () => {
  it("10 s, 20 s, 40 s … capped at 10 minutes", () => {
    expect([0, 1, 2, 3].map(backoffMs)).toEqual([0, 10_000, 20_000, 40_000]);
    expect(backoffMs(50)).toBe(BACKOFF_MAX_MS);
  });
  it("a scale-up waits out the back-off; a completed scaling resets the count", () => {
    const t0 = 10_000_000;
    let memory = scalingFailed(scalingFailed(initialMemory(2), t0 - 5000), t0);
    expect(memory.failures).toBe(2);
    const [blocked] = run(memory, [{ now: t0 + 19_999, admitted: 8 }]);
    expect(blocked).toMatchObject({ kind: "hold", ask: 2, until: t0 + 20_000 });
    expect(blocked?.kind === "hold" && blocked.why).toContain("2 failed scaling");
    memory = scaled(memory, 4, t0 + 100_000);
    expect(memory).toMatchObject({ size: 4, failures: 0, lastFailureAt: null });
  });
});

describe("scale-down", () => {
  it("preemption: at once, even while blocked, to the largest allowed size still admitted", () => {
    const memory = scaled(initialMemory(2), 8, 0);
    const [decision] = run(memory, [{ now: 1, admitted: 5, preemptedTo: 5 }]);
    expect(decision).toMatchObject({ kind: "scale", to: 4, reason: "Preempted" });
  });
  it("preemption below every allowed size: to minReplicas", () => {
    const [decision] = run(initialMemory(6), [{ now: 1, preemptedTo: 1 }]);
    expect(decision).toMatchObject({ kind: "scale", to: 2, reason: "Preempted" });
  });
  it("faulty replicas: after faultyScaleDownTimeoutInSeconds, to what the healthy replicas make", () => {
    const memory = initialMemory(8);
    const faulty = { since: 0, healthy: 7 };
    const [waiting, down] = run(memory, [
      { now: 29_999, admitted: 8, faulty },
      { now: 30_000, admitted: 8, faulty },
    ]);
    expect(waiting).toMatchObject({ kind: "hold", ask: 8, why: "replicas are failed" });
    expect(down).toMatchObject({ kind: "scale", to: 6, reason: "FaultyScaleDown" });
  });
  it("faulty replicas: never below minReplicas, and never without the timeout set", () => {
    const faulty = { since: 0, healthy: 1 };
    expect(run(initialMemory(4), [{ now: 60_000, admitted: 4, faulty }])[0]).toMatchObject({ kind: "hold" });
    const noTimeout = { ...timers, faultyScaleDownMs: null };
    const decision = decideScaling(
      initialMemory(8),
      input({ now: 1e9, faulty: { since: 0, healthy: 6 } }),
      noTimeout,
    );
    expect(decision.kind).toBe("hold");
  });
});

describe("scalingTimers", () => {
  it("reads the policy in seconds, with HyperPod-silent defaults", () => {
    expect(scalingTimers({})).toEqual({ scalingTimeoutMs: 60_000, snoozeMs: 0, faultyScaleDownMs: null });
    expect(
      scalingTimers({
        scalingTimeoutInSeconds: 5,
        faultyScaleDownTimeoutInSeconds: 30,
        scaleUpSnoozeTimeInSeconds: 9,
      }),
    ).toEqual({ scalingTimeoutMs: 5000, snoozeMs: 9000, faultyScaleDownMs: 30_000 });
  });
});
