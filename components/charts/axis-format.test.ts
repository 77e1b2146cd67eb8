import { describe, expect, it } from "vitest";
import { axisFormat } from "./axis-format";

describe("axisFormat", () => {
  it("writes every tick of a loss axis with the same decimals, and its tooltip values with one more", () => {
    // Yesterday's axis read "0.5, 0.6, 0.7, 0.8, 0.9, 1" and its tooltip "0.9231" beside "1".
    const format = axisFormat([0.52, 0.9231, 1]);
    expect(format.ticks.map(format.tick)).toEqual(["0.5", "0.6", "0.7", "0.8", "0.9", "1.0"]);
    expect([1, 0.9231, 0.5].map(format.value)).toEqual(["1.00", "0.92", "0.50"]);
  });

  it("a throughput axis from 0 in whole numbers, thousands grouped", () => {
    const format = axisFormat([1180.4, 1253.77, 1302], { from: 0 });
    expect(format.ticks.map(format.tick)).toEqual(["0", "500", "1,000", "1,500"]);
    expect(format.domain).toEqual([0, 1500]);
    expect(format.value(1253.77)).toBe("1,253.8");
  });

  it("a count's axis steps by whole numbers from 0 and says counts without decimals", () => {
    const format = axisFormat([0, 1, 2], { from: 0, integer: true });
    expect(format.ticks).toEqual([0, 1, 2]);
    expect(format.ticks.map(format.tick)).toEqual(["0", "1", "2"]);
    expect(format.value(2)).toBe("2");
  });

  it("a flat or empty series still gets an axis; a missing value is —", () => {
    expect(axisFormat([0.5, 0.5]).ticks.length).toBeGreaterThan(1);
    expect(axisFormat([]).ticks).toEqual([0, 0.2, 0.4, 0.6, 0.8, 1]);
    expect(axisFormat([1]).value(null)).toBe("—");
    expect(axisFormat([1]).value(Number.NaN)).toBe("—");
  });
});

describe("chartFormat", () => {
  it("a whole-number series (ranks running) gets whole-number ticks, a fractional one decimals", async () => {
    const { chartFormat } = await import("./metric-lines");
    const ranks = chartFormat([
      {
        name: "running",
        points: [
          { t: 1, value: 2 },
          { t: 2, value: 2 },
        ],
      },
    ]);
    expect(ranks.ticks.map(ranks.tick).every((tick) => /^\d+$/.test(tick))).toBe(true);
    const loss = chartFormat([
      {
        name: "loss",
        points: [
          { t: 1, value: 2.5 },
          { t: 2, value: 2.41 },
        ],
      },
    ]);
    expect(new Set(loss.ticks.map((tick) => loss.tick(tick).split(".")[1]?.length ?? 0)).size).toBe(1);
  });
});
