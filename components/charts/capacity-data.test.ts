import { describe, expect, it } from "vitest";
import { capacitySeries, latestCapacityText } from "./capacity-data";
import { mergeSeries } from "./chart-data";

const points = [
  { t: 2000, guaranteed: 16, used: 20, borrowed: 4, lent: 0 },
  { t: 1000, guaranteed: 16, used: 12, borrowed: 0, lent: 4 },
];

describe("capacity chart data", () => {
  it("gives one time-ordered series per line, in guaranteed/used/borrowed/lent order", () => {
    const series = capacitySeries(points);
    expect(series.map((one) => one.name)).toEqual(["Guaranteed", "Used", "Borrowed", "Lent"]);
    expect(series[1]?.points).toEqual([
      { t: 1000, value: 12 },
      { t: 2000, value: 20 },
    ]);
    expect(mergeSeries(series)[1]).toEqual({ t: 2000, s0: 16, s1: 20, s2: 4, s3: 0 });
  });

  it("reads the newest sample out in the resource's unit", () => {
    expect(latestCapacityText(points, "nvidia.com/gpu")).toBe(
      "Latest: guaranteed 16, used 20, borrowed 4, lent 0.",
    );
    expect(latestCapacityText([{ t: 1, guaranteed: 2 ** 31, used: 0, borrowed: 0, lent: 0 }], "memory")).toBe(
      "Latest: guaranteed 2 GiB, used 0 GiB, borrowed 0 GiB, lent 0 GiB.",
    );
    expect(latestCapacityText([], "cpu")).toBe("No samples.");
  });
});
