import { describe, expect, it } from "vitest";
import { applyCharts, diffCharts, type JobCharts } from "./charts";
import type { MetricsResult } from "./series";

const ok = (value: number): MetricsResult => ({
  status: "ok",
  source: "prometheus",
  series: [{ name: "job total", points: [{ t: 1, value }] }],
});

describe("job charts' patches", () => {
  it("carries only the series whose result changed, and nothing when none did", () => {
    const before: JobCharts = { throughput: ok(1), loss: ok(2) };
    const after: JobCharts = {
      throughput: ok(1),
      loss: { status: "unavailable", source: "prometheus", reason: "down" },
    };
    const patch = diffCharts(before, after);
    expect(patch).toEqual({ loss: after.loss });
    expect(applyCharts(before, patch ?? {})).toEqual(after);
    expect(diffCharts(after, after)).toBeNull();
  });
});
