import { describe, expect, it } from "vitest";
import type { TimelineEntry } from "@/server/domain/jobs/view-model";
import { timelineRows } from "./restart-timeline-model";

const entry = (id: string, faultAt: number, overrides: Partial<TimelineEntry> = {}): TimelineEntry => ({
  id,
  reason: "RankCrashed",
  message: "rank 3 exited with code 1",
  action: "PLR",
  outcome: "recovered",
  ranks: [3],
  pods: ["w-0"],
  node: "node-0",
  faultAt,
  detectedAt: faultAt + 200,
  recoveredAt: faultAt + 1200,
  detectionMs: 200,
  recoveryMs: 1000,
  ...overrides,
});

describe("timelineRows", () => {
  it("stacks offset, detection and recovery from the earliest fault, oldest first", () => {
    const data = timelineRows([entry("b", 5000), entry("a", 1000)], { now: 10_000 });
    expect(data.origin).toBe(1000);
    expect(data.rows.map((row) => row.id)).toEqual(["a", "b"]);
    expect(data.rows[1]).toMatchObject({
      offset: 4000,
      detection: 200,
      recovery: 1000,
      label: "PLR · RankCrashed",
    });
    expect(data.end).toBe(5200);
  });

  it("runs pending and failed recoveries to now", () => {
    const data = timelineRows(
      [
        entry("p", 1000, { outcome: "pending", recoveredAt: null, action: "POD_REPLACEMENT" }),
        entry("f", 2000, { outcome: "failed", recoveredAt: null, action: "FAIL" }),
      ],
      { now: 9000 },
    );
    expect(data.rows.map((row) => row.recovery)).toEqual([7800, 6800]);
    expect(data.rows[0]?.label).toBe("Pod replacement · RankCrashed");
    expect(data.end).toBe(8000);
  });

  it("keeps the most recent entries, never negative spans, and handles none", () => {
    const many = Array.from({ length: 60 }, (_, i) => entry(`e${i}`, i * 10_000));
    const data = timelineRows(many, { now: 1e6, limit: 50 });
    expect(data.rows).toHaveLength(50);
    expect(data.rows[0]?.id).toBe("e10");
    const skewed = timelineRows([entry("s", 1000, { detectedAt: 900 })], { now: 5000 });
    expect(skewed.rows[0]?.detection).toBe(0);
    expect(timelineRows([], { now: 5 })).toEqual({ origin: 5, end: 0, rows: [] });
  });

  it("draws a hang's silence before the fault and the steps redone after the recovery", () => {
    // Last step line at 1000, the hang rule fired at 4000; recovered at 5200; back at the step at 8200.
    const hang = entry("h", 4000, { progressStep: 40, progressAt: 1000, resumeStep: 30, resumedAt: 8200 });
    const data = timelineRows([hang], { now: 20_000 });
    expect(data.origin).toBe(1000);
    expect(data.rows[0]).toMatchObject({
      offset: 0,
      stalled: 3000,
      detection: 200,
      recovery: 1000,
      catchUp: 3000,
    });
    expect(data.rows[0]?.loss).toMatchObject({ basis: "progress", lostMs: 7200, lostSteps: 10 });
    expect(data.end).toBe(7200);
    // Training not back yet: the catch-up runs to now.
    const open = timelineRows([{ ...hang, resumedAt: null }], { now: 9000 });
    expect(open.rows[0]).toMatchObject({ catchUp: 3800 });
    expect(open.rows[0]?.loss?.open).toBe(true);
  });

  it("has no stalled or catch-up span for a row without progress (control-plane time)", () => {
    const data = timelineRows([entry("c", 1000)], { now: 9000 });
    expect(data.rows[0]).toMatchObject({ stalled: 0, catchUp: 0 });
    expect(data.rows[0]?.loss?.basis).toBe("control-plane");
  });
});

describe("timelineRows: crash loops (issue 36)", () => {
  it("draws a back-off's wait apart from the recovery and labels a folded row with its count", () => {
    const waited = entry("w", 1000, { recoveredAt: 1000 + 200 + 10_000 + 600, waitMs: 10_000, count: 6 });
    const [row] = timelineRows([waited], { now: 20_000 }).rows;
    expect(row).toMatchObject({
      detection: 200,
      waiting: 10_000,
      recovery: 600,
      label: "PLR · RankCrashed ×6",
    });
  });
});
