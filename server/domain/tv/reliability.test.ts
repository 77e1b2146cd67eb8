import { describe, expect, it } from "vitest";
import type { TimelineEntry } from "@/server/domain/jobs/view-model";
import { DAY_MS, HOUR_MS, reliabilityOf } from "./reliability";

const NOW = Date.UTC(2026, 10, 28, 12, 30);
let id = 0;
function fault(
  faultAt: number,
  recoveredAt: number | null,
  outcome: TimelineEntry["outcome"] = recoveredAt === null ? "pending" : "recovered",
): TimelineEntry {
  id += 1;
  return {
    id: `f${id}`,
    reason: "RankCrashed",
    message: "",
    action: "PLR",
    outcome,
    ranks: [0],
    pods: [],
    node: null,
    faultAt,
    detectedAt: faultAt + 100,
    recoveredAt,
    detectionMs: 100,
    recoveryMs: recoveredAt === null ? null : recoveredAt - faultAt - 100,
  };
}

describe("reliabilityOf", () => {
  it("counts each failure a folded row stands for, and leaves its back-off wait out of MTTR", () => {
    // A crash loop of 5 folded into one row: 12 s from fault to recovered, 10 s of it waiting out back-off.
    const folded = { ...fault(NOW - HOUR_MS, NOW - HOUR_MS + 12_000), count: 5, waitMs: 10_000 };
    const stats = reliabilityOf([folded, fault(NOW - 2 * HOUR_MS, null)], NOW);
    expect(stats).toMatchObject({ faults: 6, recovered: 5, pending: 1, mttrMs: 2_000 });
    expect(stats.perHour.reduce((sum, hour) => sum + hour.faults, 0)).toBe(6);
  });

  it("is empty with no faults: 24 zero hours, no MTTR", () => {
    const stats = reliabilityOf([], NOW);
    expect(stats).toMatchObject({ faults: 0, recovered: 0, failed: 0, pending: 0, mttrMs: null });
    expect(stats.perHour).toHaveLength(24);
    expect(stats.perHour.every((hour) => hour.faults === 0)).toBe(true);
    expect(stats.perHour[0]?.start).toBe(NOW - DAY_MS);
    expect(stats.perHour[23]?.start).toBe(NOW - HOUR_MS);
  });

  it("counts only the last 24 h, MTTR over the recovered ones", () => {
    const stats = reliabilityOf(
      [
        fault(NOW - DAY_MS - 1, NOW - DAY_MS + 10_000), // before the window
        fault(NOW - 5 * HOUR_MS, NOW - 5 * HOUR_MS + 2_000),
        fault(NOW - 2 * HOUR_MS, NOW - 2 * HOUR_MS + 4_000),
        fault(NOW - HOUR_MS, null, "failed"),
        fault(NOW - 1_000, null),
        fault(NOW + 5_000, NOW + 6_000), // a clock ahead: not counted
      ],
      NOW,
    );
    expect(stats).toMatchObject({ faults: 4, recovered: 2, failed: 1, pending: 1, mttrMs: 3_000 });
  });

  it("puts each fault in its hour, and the hours add up to the faults", () => {
    const entries = [
      fault(NOW - DAY_MS + 1, NOW - DAY_MS + 500), // the window's first ms: hour 0
      fault(NOW - 23 * HOUR_MS, NOW - 23 * HOUR_MS + 1), // exactly one hour in: still hour 0
      fault(NOW - 23 * HOUR_MS + 1, NOW - 23 * HOUR_MS + 2), // hour 1
      fault(NOW - 30 * 60_000, null),
      fault(NOW, null), // now: the last hour
    ];
    const stats = reliabilityOf(entries, NOW);
    expect(stats.perHour.map((hour) => hour.faults)).toEqual([2, 1, ...Array(21).fill(0), 2]);
    expect(stats.perHour.reduce((sum, hour) => sum + hour.faults, 0)).toBe(stats.faults);
  });

  it("ignores entries with non-finite times", () => {
    expect(reliabilityOf([fault(Number.NaN, null)], NOW).faults).toBe(0);
  });
});
