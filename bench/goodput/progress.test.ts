import { describe, expect, it } from "vitest";
import {
  faultLoss,
  measureGoodput,
  parseRestoreLine,
  parseStepLine,
  rankPeriodsMs,
  type StepLine,
  unionMs,
} from "./progress";

const PERIOD = 100;
const PERIODS = new Map([
  [0, PERIOD],
  [1, PERIOD],
]);

/** Two ranks stepping in lock-step every 100 ms: steps from..to, the first at `at`. */
function steps(opts: { from: number; to: number; at: number; ranks?: number[]; good?: boolean }): StepLine[] {
  const lines: StepLine[] = [];
  for (let step = opts.from; step <= opts.to; step += 1)
    for (const rank of opts.ranks ?? [0, 1])
      lines.push({ at: opts.at + (step - opts.from) * PERIOD, rank, step, good: opts.good ?? true });
  return lines;
}

describe("parseStepLine", () => {
  it("reads the demo trainer's line, bare or as the agent tees it", () => {
    expect(parseStepLine("step=12 loss=1.2345 throughput=1200.0 samples/s rank=7", 5)).toEqual({
      at: 5,
      step: 12,
      rank: 7,
      good: true,
    });
    expect(parseStepLine("[default3]:step=4 loss=nan throughput=60.0 samples/s rank=3", 9)).toEqual({
      at: 9,
      step: 4,
      rank: 3,
      good: false,
    });
    expect(parseStepLine("training started rank=3 local_rank=3 world_size=64 restart=0", 1)).toBeNull();
  });
});

describe("parseRestoreLine", () => {
  it("tells a state taken from a peer from a checkpoint reload", () => {
    expect(parseRestoreLine("[default2]:state from peer rank=3 step=40 weights=ab12 rank=10")).toBe("peer");
    expect(parseRestoreLine("[default0]:resuming from checkpoint at step 50")).toBe("checkpoint");
    expect(parseRestoreLine("[default0]:step=51 loss=1.0 throughput=1200.0 samples/s rank=0")).toBeNull();
  });
});

describe("rankPeriodsMs", () => {
  it("is each rank's median interval between consecutive good steps", () => {
    const lines: StepLine[] = [
      { at: 0, rank: 0, step: 1, good: true },
      { at: 100, rank: 0, step: 2, good: true },
      { at: 200, rank: 0, step: 3, good: true },
      { at: 900, rank: 0, step: 4, good: true },
      { at: 0, rank: 1, step: 1, good: true },
      { at: 250, rank: 1, step: 2, good: true },
      { at: 500, rank: 1, step: 3, good: false },
      { at: 700, rank: 1, step: 1, good: true },
    ];
    expect(rankPeriodsMs(lines.sort((a, b) => a.at - b.at))).toEqual(
      new Map([
        [0, 100],
        [1, 250],
      ]),
    );
  });
});

describe("faultLoss", () => {
  it("a crash with peer recovery: the restarted rank goes on from the same step, nothing lost but its restart", () => {
    // Both ranks step 1..50 (t = 0..4900); rank 1 killed at 4950; both paused; rank 1 back with step 51 at 5700.
    const lines = [...steps({ from: 1, to: 50, at: 0 }), ...steps({ from: 51, to: 60, at: 5700 })];
    const loss = faultLoss({
      lines,
      fault: { at: 4950, kind: "crash", victims: [1] },
      periods: PERIODS,
    });
    expect(loss).toMatchObject({ progressStep: 50, progressAt: 4900, resumeStep: 50, lostSteps: 0 });
    // Step 51 would have come at 5000; it came at 5700.
    expect(loss.lostMs).toBe(700);
  });

  it("a checkpoint rollback: steps since the checkpoint are lost, and the time to redo them", () => {
    // Checkpoint at 40; crash at 4950 (last step 50 at 4900); every rank restarts at step 41 at 6000.
    const lines = [...steps({ from: 1, to: 50, at: 0 }), ...steps({ from: 41, to: 60, at: 6000 })];
    const loss = faultLoss({
      lines,
      fault: { at: 4950, kind: "crash", victims: [0] },
      periods: PERIODS,
    });
    expect(loss).toMatchObject({ progressStep: 50, resumeStep: 40, lostSteps: 10 });
    // Step 50 done again at 6900 (41 at 6000 + 9 periods): lost = 6900 − 4900.
    expect(loss.resumedAt).toBe(6900);
    expect(loss.lostMs).toBe(2000);
  });

  it("a hang: from the stalled rank's last line, the detection window included, while others ran ahead", () => {
    // Rank 1 hangs after step 20 (t 1900); rank 0 goes on to step 40; a 2 s window, then both restart at 21.
    const lines = [
      ...steps({ from: 1, to: 20, at: 0 }),
      ...steps({ from: 21, to: 40, at: 2000, ranks: [0] }),
      ...steps({ from: 21, to: 30, at: 4500 }),
    ];
    const loss = faultLoss({
      lines,
      fault: { at: 1950, kind: "hang", victims: [1] },
      periods: PERIODS,
    });
    expect(loss).toMatchObject({ progressStep: 20, progressAt: 1900, resumeStep: 20, lostSteps: 0 });
    expect(loss.lostMs).toBe(2500);
  });

  it("a hang that takes effect a step after the fault: the outage starts at the rank's last line", () => {
    // The fault is written at 1850, the rank still prints step 20 at 1900, then nothing until 4500.
    const lines = [...steps({ from: 1, to: 20, at: 0 }), ...steps({ from: 21, to: 30, at: 4500 })];
    const loss = faultLoss({ lines, fault: { at: 1850, kind: "hang", victims: [1] }, periods: PERIODS });
    expect(loss).toMatchObject({ progressStep: 20, progressAt: 1900, resumeStep: 20, lostSteps: 0 });
    expect(loss.lostMs).toBe(2500);
  });

  it("a fault that never stopped its rank costs nothing", () => {
    const lines = steps({ from: 1, to: 100, at: 0 });
    const loss = faultLoss({ lines, fault: { at: 1850, kind: "hang", victims: [1] }, periods: PERIODS });
    expect(loss.lostMs).toBe(0);
    expect(loss.lostSteps).toBe(0);
  });

  it("NaN lines are not progress: the last good line is where the loss starts", () => {
    const lines = [
      ...steps({ from: 1, to: 20, at: 0 }),
      ...steps({ from: 21, to: 30, at: 2000, ranks: [1], good: false }),
      ...steps({ from: 21, to: 30, at: 2000, ranks: [0] }),
      ...steps({ from: 11, to: 40, at: 3500 }),
    ];
    const loss = faultLoss({
      lines,
      fault: { at: 1950, kind: "nan", victims: [1] },
      periods: PERIODS,
    });
    expect(loss).toMatchObject({ progressStep: 20, resumeStep: 10, lostSteps: 10 });
    // Step 20 again at 3500 + 9 × 100.
    expect(loss.lostMs).toBe(4400 - 1900);
  });

  it("a node: from the earliest victim's last line to the last victim back, the most steps any lost", () => {
    // Rank 1 is a step behind rank 0 when the node dies at 1950; both restart from step 16 at 3000.
    const lines = [
      ...steps({ from: 1, to: 20, at: 0, ranks: [0] }),
      ...steps({ from: 1, to: 19, at: 50, ranks: [1] }),
      ...steps({ from: 16, to: 30, at: 3000 }),
    ].sort((a, b) => a.at - b.at);
    const loss = faultLoss({ lines, fault: { at: 1950, kind: "node", victims: [0, 1] }, periods: PERIODS });
    expect(loss).toMatchObject({ progressStep: 19, progressAt: 1850, resumeStep: 15, lostSteps: 5 });
    // Rank 0 passes step 20 at 3500 (back at 3400); rank 1 passes 19 at 3400 (back at 3300).
    expect(loss.resumedAt).toBe(3400);
    expect(loss.lostMs).toBe(3400 - 1850);
  });

  it("a fault the job never recovers from stays open", () => {
    const lines = steps({ from: 1, to: 20, at: 0 });
    const loss = faultLoss({
      lines,
      fault: { at: 1950, kind: "node", victims: [0, 1] },
      periods: PERIODS,
    });
    expect(loss).toMatchObject({ progressStep: 20, resumedAt: null, lostMs: null });
  });
});

describe("measureGoodput", () => {
  it("no fault: goodput and ETTR are 1", () => {
    const lines = steps({ from: 1, to: 101, at: 0 });
    const result = measureGoodput({ lines, faults: [], window: { start: 0, end: 10_000 } });
    expect(result.goodput).toBe(1);
    expect(result.ettr).toBeCloseTo(1, 5);
    expect(result.periodMs).toBe(PERIOD);
  });

  it("a rollback costs its downtime and its redone steps, in goodput and ETTR alike", () => {
    const lines = [...steps({ from: 1, to: 50, at: 0 }), ...steps({ from: 41, to: 101, at: 6000 })];
    const result = measureGoodput({
      lines,
      faults: [{ at: 4950, kind: "crash", victims: [0] }],
      window: { start: 0, end: 12_000 },
    });
    expect(result.lostMs).toBe(2000);
    expect(result.goodput).toBeCloseTo(1 - 2000 / 12_000, 5);
    // Step 101 at 12000: 101 steps × 100 ms in 12 s; the same 2 s lost (the first step's 100 ms aside).
    expect(result.ettr).toBeCloseTo(((101 - 1) * 0.1) / 12, 5);
    expect(result.open).toBe(0);
  });

  it("an open fault counts as lost up to the window's end", () => {
    const lines = steps({ from: 1, to: 20, at: 0 });
    const result = measureGoodput({
      lines,
      faults: [{ at: 1950, kind: "node", victims: [0, 1] }],
      window: { start: 0, end: 3900 },
    });
    expect(result.open).toBe(1);
    expect(result.lostMs).toBe(2000);
  });
});

describe("unionMs", () => {
  it("counts overlapping intervals once", () => {
    expect(
      unionMs([
        { from: 0, to: 10 },
        { from: 5, to: 20 },
        { from: 30, to: 40 },
        { from: 50, to: 45 },
      ]),
    ).toBe(30);
  });
});
