import { describe, expect, it } from "vitest";
import { downsample, Ring, TieredSeries } from "./history-ring";

describe("Ring", () => {
  it("keeps the newest `capacity` points, oldest first", () => {
    const ring = new Ring(3);
    for (let t = 1; t <= 5; t++) ring.push(t * 1000, t * 10);
    expect(ring.size).toBe(3);
    expect(ring.oldest()).toBe(3000);
    expect(ring.between(0, 10_000)).toEqual([
      { t: 3000, value: 30 },
      { t: 4000, value: 40 },
      { t: 5000, value: 50 },
    ]);
    expect(ring.between(3500, 4500)).toEqual([{ t: 4000, value: 40 }]);
  });

  it("is empty before the first push", () => {
    const ring = new Ring(4);
    expect(ring.oldest()).toBeUndefined();
    expect(ring.between(0, 1e15)).toEqual([]);
  });
});

describe("downsample", () => {
  it("averages the points of each step (t − step, t] onto start + k·step, leaving gaps where none", () => {
    const points = [
      { t: 10_500, value: 1 },
      { t: 11_000, value: 3 },
      { t: 12_000, value: 10 },
      { t: 31_000, value: 7 },
    ];
    expect(downsample(points, { start: 10_000, end: 40_000, stepSeconds: 5 })).toEqual([
      { t: 15_000, value: 14 / 3 },
      { t: 35_000, value: 7 },
    ]);
  });

  it("never yields more points than steps in the window", () => {
    const points = Array.from({ length: 10_000 }, (_, i) => ({ t: i * 100, value: i }));
    const out = downsample(points, { start: 0, end: 1_000_000, stepSeconds: 4 });
    expect(out.length).toBeLessThanOrEqual(251);
    expect(out.every((p, i) => i === 0 || p.t - (out[i - 1]?.t ?? 0) === 4000)).toBe(true);
  });

  it("drops non-finite values instead of drawing them", () => {
    expect(downsample([{ t: 1000, value: Number.NaN }], { start: 0, end: 5000, stepSeconds: 1 })).toEqual([]);
  });
});

describe("TieredSeries", () => {
  it("serves old history as per-minute means and recent history sample by sample", () => {
    const series = new TieredSeries({ finePoints: 60, coarsePoints: 10, coarseMs: 60_000 });
    // 5 minutes at one sample per 2 s = 150 samples; the fine ring keeps the last 60 (2 minutes).
    for (let i = 0; i < 150; i++) series.push(i * 2000, i < 30 ? 1 : 2);
    const all = series.between(0, 300_000);
    const fine = all.filter((p) => p.t >= 180_000);
    const coarse = all.filter((p) => p.t < 180_000);
    expect(fine).toHaveLength(60);
    // Minutes 0, 1, 2 were flushed when minute 3 began (minute 0: value 1; minutes 1 and 2: value 2).
    expect(coarse).toEqual([
      { t: 0, value: 1 },
      { t: 60_000, value: 2 },
      { t: 120_000, value: 2 },
    ]);
  });

  it("holds a fixed number of points however long it runs", () => {
    const series = new TieredSeries({ finePoints: 10, coarsePoints: 5, coarseMs: 1000 });
    for (let i = 0; i < 100_000; i++) series.push(i * 100, i);
    expect(series.between(0, 1e9).length).toBeLessThanOrEqual(15);
  });
});
