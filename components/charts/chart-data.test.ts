import { describe, expect, it } from "vitest";
import { countSince, mergeSeries, timeTicks } from "./chart-data";

describe("mergeSeries", () => {
  it("merges series by time, sorted, leaving gaps undefined", () => {
    const rows = mergeSeries([
      {
        name: "mean",
        points: [
          { t: 2, value: 1.5 },
          { t: 1, value: 2 },
        ],
      },
      {
        name: "rank 3",
        points: [
          { t: 2, value: 1.7 },
          { t: 3, value: 1.6 },
        ],
      },
    ]);
    expect(rows).toEqual([
      { t: 1, s0: 2 },
      { t: 2, s0: 1.5, s1: 1.7 },
      { t: 3, s1: 1.6 },
    ]);
  });

  it("drops non-finite values and thins long histories, keeping the newest", () => {
    const points = Array.from({ length: 1000 }, (_, t) => ({ t, value: t === 5 ? Number.NaN : t }));
    const rows = mergeSeries([{ name: "x", points }], 100);
    expect(rows.length).toBeLessThanOrEqual(101);
    expect(rows.at(-1)?.t).toBe(999);
    expect(rows.some((row) => row.t === 5)).toBe(false);
    expect(mergeSeries([])).toEqual([]);
  });
});

describe("timeTicks", () => {
  it("picks a nice clock-aligned step giving about `count` ticks", () => {
    expect(timeTicks(0, 10_000, 6)).toEqual([0, 2000, 4000, 6000, 8000, 10_000]);
    expect(timeTicks(1500, 9_000, 4)).toEqual([2000, 4000, 6000, 8000]);
    const tenMinutes = timeTicks(1_000_000, 1_600_000, 6);
    expect(tenMinutes).toEqual([1_080_000, 1_200_000, 1_320_000, 1_440_000, 1_560_000]);
  });

  it("handles empty and degenerate ranges, and very long ones", () => {
    expect(timeTicks(5, 5)).toEqual([5]);
    expect(timeTicks(Number.NaN, 5)).toEqual([]);
    expect(timeTicks(0, 30 * 86_400_000, 6).length).toBeLessThanOrEqual(7);
  });
});

describe("countSince", () => {
  const created = 100_000;
  const restarts = {
    name: "PLR",
    points: [
      { t: 40_000, value: 3 },
      { t: 90_000, value: 3 },
      { t: 130_000, value: 0 },
      { t: 160_000, value: 1 },
    ],
  };

  it("drops what came before the job and starts the count at 0 at its creation", () => {
    expect(countSince([restarts], created, 0)).toEqual([
      {
        name: "PLR",
        points: [
          { t: 100_000, value: 0 },
          { t: 130_000, value: 0 },
          { t: 160_000, value: 1 },
        ],
      },
    ]);
  });

  it("a job created before the window is drawn from the window's first sample", () => {
    expect(countSince([restarts], created, 120_000)[0]?.points[0]).toEqual({ t: 130_000, value: 0 });
  });
});
