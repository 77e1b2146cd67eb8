import { describe, expect, it } from "vitest";
import { progressAtMs, STALL_FLOOR_MS, stalledForMs, stallThresholdMs } from "./progress-stall";

const T0 = Date.parse("2025-01-01T00:00:00Z");
const running = (lastProgressAt: number | null, progressIntervalMs: number | null) => ({
  state: "running",
  lastProgressAt,
  progressIntervalMs,
});

describe("stall threshold: max(3 x usual interval, 5 s)", () => {
  it.each([
    [200, 5000],
    [1000, 5000],
    [1667, 5001],
    [2000, 6000],
    [60_000, 180_000],
  ])("usual %i ms -> %i ms", (usual, threshold) => {
    expect(stallThresholdMs(usual)).toBe(threshold);
  });
});

describe("stalledForMs (the progress age once past the threshold)", () => {
  it("is null until the age passes the threshold, then the age, counting up", () => {
    const rank = running(T0, 200);
    expect(stalledForMs(rank, T0 + 4000)).toBeNull();
    expect(stalledForMs(rank, T0 + STALL_FLOOR_MS)).toBeNull();
    expect(stalledForMs(rank, T0 + 5001)).toBe(5001);
    expect(stalledForMs(rank, T0 + 9000)).toBe(9000);
  });

  it("scales with the rank's usual interval: a 30 s step is not stalled at 60 s", () => {
    expect(stalledForMs(running(T0, 30_000), T0 + 60_000)).toBeNull();
    expect(stalledForMs(running(T0, 30_000), T0 + 90_001)).toBe(90_001);
  });

  it("shows nothing for a rank with no progress yet, no usual interval yet, or that is not running", () => {
    expect(stalledForMs(running(null, null), T0 + 3_600_000)).toBeNull();
    expect(stalledForMs(running(T0, null), T0 + 3_600_000)).toBeNull();
    expect(
      stalledForMs({ state: "crashed", lastProgressAt: T0, progressIntervalMs: 200 }, T0 + 60_000),
    ).toBeNull();
    expect(stalledForMs({ state: "running" }, T0 + 60_000)).toBeNull();
  });
});

describe("progressAtMs", () => {
  it("reads the agent's ISO text (microseconds, +00:00) and refuses what is not a time", () => {
    expect(progressAtMs("2025-01-01T00:00:01.500000+00:00")).toBe(T0 + 1500);
    expect(progressAtMs(null)).toBeNull();
    expect(progressAtMs(undefined)).toBeNull();
    expect(progressAtMs("yesterday")).toBeNull();
  });
});
