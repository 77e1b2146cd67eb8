import { describe, expect, it } from "vitest";
import { alignWindow, chooseStepSeconds, promDuration, TARGET_POINTS } from "./step";

const MIN = 60_000;
const HOUR = 60 * MIN;

describe("chooseStepSeconds", () => {
  it("gives about 250 points, rounded up to a step people read", () => {
    expect(chooseStepSeconds(5 * MIN)).toBe(5); // 300 s / 250 = 1.2 s → 5 s
    expect(chooseStepSeconds(4 * MIN)).toBe(1); // 240 s / 250 < 1 s → 1 s
    expect(chooseStepSeconds(15 * MIN)).toBe(5); // 3.6 s → 5 s
    expect(chooseStepSeconds(HOUR)).toBe(15); // 14.4 s → 15 s
    expect(chooseStepSeconds(2 * HOUR)).toBe(30); // 28.8 s → 30 s
    expect(chooseStepSeconds(4 * HOUR)).toBe(60); // 57.6 s → 1 min
    expect(chooseStepSeconds(24 * HOUR)).toBe(900); // 345.6 s → 15 min
    expect(chooseStepSeconds(7 * 24 * HOUR)).toBe(3600); // 2419 s → 1 h
    expect(chooseStepSeconds(365 * 24 * HOUR)).toBe(2 * 86_400); // past a day: whole days
  });

  it("never asks for more than TARGET_POINTS points, never less than 1 s", () => {
    for (let range = 1000; range < 30 * 24 * HOUR; range = Math.ceil(range * 1.37)) {
      const step = chooseStepSeconds(range);
      expect(step).toBeGreaterThanOrEqual(1);
      expect(range / 1000 / step).toBeLessThanOrEqual(TARGET_POINTS);
    }
  });

  it("gives 1 s to an empty, reversed or non-finite range", () => {
    expect(chooseStepSeconds(0)).toBe(1);
    expect(chooseStepSeconds(-5000)).toBe(1);
    expect(chooseStepSeconds(Number.NaN)).toBe(1);
  });
});

describe("promDuration and alignWindow", () => {
  it("writes Prometheus durations", () => {
    expect(promDuration(15)).toBe("15s");
    expect(promDuration(300)).toBe("5m");
    expect(promDuration(7200)).toBe("2h");
  });

  it("snaps the start to a multiple of the step so successive polls share points", () => {
    expect(alignWindow({ start: 1_000_007_400, end: 1_000_100_000 }, 15)).toEqual({
      start: 1_000_005_000,
      end: 1_000_100_000,
    });
  });
});
