import { describe, expect, it } from "vitest";
import type { TimelineEntry } from "@/server/domain/jobs/view-model";
import { timelineTotals, unionLength } from "./timeline";

let nextId = 0;
function entry(
  faultAt: number,
  recoveredAt: number | null,
  outcome?: TimelineEntry["outcome"],
): TimelineEntry {
  nextId += 1;
  return {
    id: `e${nextId}`,
    reason: "RankCrashed",
    message: "",
    action: "PLR",
    outcome: outcome ?? (recoveredAt === null ? "pending" : "recovered"),
    ranks: [0],
    pods: ["p-0"],
    node: "n-0",
    faultAt,
    detectedAt: faultAt + 100,
    recoveredAt,
    detectionMs: 100,
    recoveryMs: recoveredAt === null ? null : recoveredAt - faultAt - 100,
  };
}

describe("unionLength", () => {
  it("merges overlapping and touching intervals", () => {
    expect(unionLength([])).toBe(0);
    expect(
      unionLength([
        { start: 10, end: 20 },
        { start: 0, end: 5 },
        { start: 15, end: 30 },
        { start: 30, end: 31 },
      ]),
    ).toBe(26);
    expect(
      unionLength([
        { start: 0, end: 100 },
        { start: 10, end: 20 },
      ]),
    ).toBe(100);
  });
});

describe("timelineTotals", () => {
  const startedAt = 0;

  it("is all-good with no faults", () => {
    expect(timelineTotals([], { startedAt, now: 1000 })).toEqual({
      faults: 0,
      mttrMs: null,
      downtimeMs: 0,
      goodput: 1,
      lostSteps: 0,
      basis: "none",
      controlPlaneFaults: 0,
    });
  });

  it("counts a hang from the stalled rank's last step line, and the steps redone", () => {
    // Training since 0; last step (500) at 500 s; the hang rule fired at 530 s; restarted at 531 s from the
    // step-490 checkpoint; back at step 500 at 541 s. The control plane alone would say 1.1 s.
    const hang = {
      ...entry(530_000, 531_000),
      progressStep: 500,
      progressAt: 500_000,
      resumeStep: 490,
      resumedAt: 541_000,
    };
    const totals = timelineTotals([hang], { startedAt, now: 1_000_000 });
    expect(totals).toMatchObject({
      downtimeMs: 41_000,
      lostSteps: 10,
      basis: "progress",
      controlPlaneFaults: 0,
    });
    expect(totals.goodput).toBeCloseTo(0.959);
    expect(totals.mttrMs).toBe(1000);
  });

  it("says which faults were measured by control-plane time (rows without progress)", () => {
    const measured = {
      ...entry(5000, 6000),
      progressStep: 4,
      progressAt: 4000,
      resumeStep: 4,
      resumedAt: 7000,
    };
    const totals = timelineTotals([entry(100, 300), measured], { startedAt, now: 10_000 });
    expect(totals).toMatchObject({ basis: "mixed", controlPlaneFaults: 1, downtimeMs: 200 + 3000 });
  });

  it("computes MTTR over recovered faults only, and sums downtime", () => {
    const totals = timelineTotals([entry(100, 300), entry(1000, 1600), entry(5000, null, "failed")], {
      startedAt,
      now: 10_000,
    });
    expect(totals.faults).toBe(3);
    expect(totals.mttrMs).toBe(400);
    expect(totals.downtimeMs).toBe(200 + 600 + 5000);
    expect(totals.goodput).toBeCloseTo(1 - 5800 / 10_000);
  });

  it("runs pending faults to now", () => {
    const totals = timelineTotals([entry(9000, null)], { startedAt, now: 10_000 });
    expect(totals.downtimeMs).toBe(1000);
    expect(totals.mttrMs).toBeNull();
  });

  it("does not count overlapping faults twice", () => {
    const totals = timelineTotals([entry(1000, 3000), entry(2000, 2500), entry(2800, 4000)], {
      startedAt,
      now: 10_000,
    });
    expect(totals.downtimeMs).toBe(3000);
    expect(totals.goodput).toBeCloseTo(0.7);
  });

  it("has null goodput before the job started, and clips to [startedAt, now]", () => {
    expect(timelineTotals([entry(100, 200)], { startedAt: null, now: 1000 }).goodput).toBeNull();
    const clipped = timelineTotals([entry(-500, 500), entry(900, 2000)], { startedAt: 0, now: 1000 });
    expect(clipped.downtimeMs).toBe(600);
  });

  it("clamps goodput to [0, 1] and ignores non-finite times", () => {
    expect(timelineTotals([entry(0, null)], { startedAt: 0, now: 1000 }).goodput).toBe(0);
    expect(timelineTotals([], { startedAt: 1000, now: 1000 }).goodput).toBe(1);
    const bad = timelineTotals([entry(Number.NaN, 50)], { startedAt: 0, now: 1000 });
    expect(bad.downtimeMs).toBe(0);
    expect(bad.mttrMs).toBeNull();
  });
});

describe("timelineTotals: a crash loop's rows (issue 36)", () => {
  it("counts every failure a folded row stands for, not the rows", () => {
    const folded = { ...entry(1_000, 2_000), count: 5 };
    const failed = { ...entry(60_000, null, "failed"), action: "FAIL" as const };
    const totals = timelineTotals([folded, failed], { startedAt: 0, now: 100_000 });
    expect(totals.faults).toBe(6);
  });

  it("keeps a back-off's wait out of MTTR and totals it apart", () => {
    // Fault at 1 s, detected at 1.1 s, waited 10 s of back-off, agents started again at 11.6 s.
    const waited = { ...entry(1_000, 11_600), waitMs: 10_000 };
    const plain = entry(20_000, 20_700);
    const totals = timelineTotals([waited, plain], { startedAt: 0, now: 30_000 });
    // (11.6 − 1 − 10) s and 0.7 s: 0.6 s and 0.7 s, mean 0.65 s (not 5.65 s with the wait in).
    expect(totals.mttrMs).toBe(650);
    expect(totals.waitMs).toBe(10_000);
  });
});
