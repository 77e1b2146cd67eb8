import { describe, expect, it } from "vitest";
import { clusterGoodput, type FaultFacts, faultLoss, jobGoodput } from "./index";

/** A job stepping once a second from t = 0 (step n printed at n s), with faults on it. */
const S = 1000;

function fault(overrides: Partial<FaultFacts>): FaultFacts {
  return {
    faultAt: 0,
    detectedAt: 0,
    recoveredAt: null,
    outcome: "pending",
    progressStep: null,
    progressAt: null,
    resumeStep: null,
    resumedAt: null,
    ...overrides,
  };
}

describe("faultLoss", () => {
  it("a hang counts from the stalled rank's last step line, so the detection window is lost", () => {
    // Step 100 at 100 s, then silence; the 30 s hang rule fires at 130 s, detected at 130.2 s; restarted
    // in place from the step-90 checkpoint at 131 s, step 100 printed again at 141 s.
    const hang = fault({
      faultAt: 130 * S,
      detectedAt: 130.2 * S,
      recoveredAt: 131 * S,
      outcome: "recovered",
      progressStep: 100,
      progressAt: 100 * S,
      resumeStep: 90,
      resumedAt: 141 * S,
    });
    const loss = faultLoss(hang, { now: 200 * S });
    expect(loss).toEqual({
      basis: "progress",
      start: 100 * S,
      end: 141 * S,
      open: false,
      lostMs: 41 * S,
      lostSteps: 10,
    });
    // The control plane alone saw 1 s of it.
    expect((hang.recoveredAt ?? 0) - hang.faultAt).toBe(1 * S);
  });

  it("a crash counts from the crash to progress back at the step it had reached", () => {
    const crash = fault({
      faultAt: 100.5 * S,
      detectedAt: 100.6 * S,
      recoveredAt: 101.5 * S,
      outcome: "recovered",
      progressStep: 100,
      progressAt: 100.5 * S,
      resumeStep: 100,
      resumedAt: 102.5 * S,
    });
    expect(faultLoss(crash, { now: 200 * S })).toMatchObject({ lostMs: 2 * S, lostSteps: 0, open: false });
  });

  it("a checkpoint rollback loses the steps since the checkpoint and the time to redo them", () => {
    // Crash at step 107 (107.2 s); the checkpoint is step 100; back at 108.2 s, steps 101..107 redone by 115.2 s.
    const rollback = fault({
      faultAt: 107.2 * S,
      detectedAt: 107.3 * S,
      recoveredAt: 108.2 * S,
      outcome: "recovered",
      progressStep: 107,
      progressAt: 107.2 * S,
      resumeStep: 100,
      resumedAt: 115.2 * S,
    });
    const loss = faultLoss(rollback, { now: 200 * S });
    expect(loss.lostSteps).toBe(7);
    expect(loss.lostMs).toBe(8 * S); // 1 s of restart + 7 s of redone steps
  });

  it("a peer recovery resumes at the same step: no step lost, only the pause", () => {
    const peer = fault({
      faultAt: 50 * S,
      detectedAt: 50.1 * S,
      recoveredAt: 50.4 * S,
      outcome: "recovered",
      progressStep: 50,
      progressAt: 50 * S,
      resumeStep: 50,
      resumedAt: 51.4 * S,
    });
    expect(faultLoss(peer, { now: 100 * S })).toMatchObject({ lostSteps: 0, lostMs: 1.4 * S });
  });

  it("never counts negative steps (a checkpoint newer than the step seen at the fault)", () => {
    const loss = faultLoss(fault({ progressAt: 10, progressStep: 5, resumeStep: 6, resumedAt: 20 }), {
      now: 99,
    });
    expect(loss.lostSteps).toBe(0);
  });

  it("a fault still open counts up to now; one never resumed before the next fault ends at that fault", () => {
    const open = fault({
      faultAt: 10 * S,
      progressAt: 8 * S,
      progressStep: 8,
      recoveredAt: 12 * S,
      outcome: "recovered",
    });
    expect(faultLoss(open, { now: 20 * S })).toMatchObject({
      open: true,
      end: 20 * S,
      lostMs: 12 * S,
      lostSteps: null,
    });
    const next = fault({ faultAt: 15 * S, detectedAt: 15.1 * S });
    expect(faultLoss(open, { now: 20 * S, next })).toMatchObject({ open: false, end: 15 * S, lostMs: 7 * S });
  });

  it("falls back to control-plane time for a row without progress facts", () => {
    const old = fault({ faultAt: 10 * S, detectedAt: 11 * S, recoveredAt: 13 * S, outcome: "recovered" });
    expect(faultLoss(old, { now: 99 * S })).toEqual({
      basis: "control-plane",
      start: 10 * S,
      end: 13 * S,
      open: false,
      lostMs: 3 * S,
      lostSteps: null,
    });
    const pending = fault({ faultAt: 10 * S, detectedAt: 11 * S });
    expect(faultLoss(pending, { now: 20 * S })).toMatchObject({ open: true, lostMs: 10 * S });
  });

  it("gives a zero loss for non-finite times", () => {
    expect(faultLoss(fault({ faultAt: Number.NaN }), { now: 5 }).lostMs).toBe(0);
  });
});

describe("jobGoodput", () => {
  it("is 1 with no faults, null before the job started", () => {
    expect(jobGoodput([], { startedAt: 0, now: 100 * S })).toEqual({
      goodput: 1,
      lostMs: 0,
      lostSteps: 0,
      basis: "none",
      controlPlaneFaults: 0,
      openFaults: 0,
    });
    expect(jobGoodput([], { startedAt: null, now: 100 * S }).goodput).toBeNull();
  });

  it("a hung job is not 99.9%: the hang window counts", () => {
    // 1000 s of training; a 30 s hang window, 1 s restart, 10 steps redone (10 s).
    const hang = fault({
      faultAt: 530 * S,
      detectedAt: 530.2 * S,
      recoveredAt: 531 * S,
      outcome: "recovered",
      progressStep: 500,
      progressAt: 500 * S,
      resumeStep: 490,
      resumedAt: 541 * S,
    });
    const totals = jobGoodput([hang], { startedAt: 0, now: 1000 * S });
    expect(totals.goodput).toBeCloseTo(1 - 41 / 1000, 6);
    expect(totals).toMatchObject({ lostSteps: 10, basis: "progress", openFaults: 0 });
  });

  it("a fault during the recovery of another is counted once", () => {
    // A crash at 100 s (step 100); while restarting, a second crash at 101 s; the second row carries the
    // same last progress on; progress back at step 100 at 110 s.
    const first = fault({
      faultAt: 100 * S,
      detectedAt: 100.1 * S,
      outcome: "failed",
      progressStep: 100,
      progressAt: 100 * S,
    });
    const second = fault({
      faultAt: 101 * S,
      detectedAt: 101.1 * S,
      recoveredAt: 103 * S,
      outcome: "recovered",
      progressStep: 100,
      progressAt: 100 * S,
      resumeStep: 95,
      resumedAt: 110 * S,
    });
    const totals = jobGoodput([second, first], { startedAt: 0, now: 200 * S });
    expect(totals.lostMs).toBe(10 * S);
    expect(totals.lostSteps).toBe(5);
    expect(totals.goodput).toBeCloseTo(0.95, 6);
  });

  it("mixes rows without progress facts in on the control-plane basis and says so", () => {
    const old = fault({ faultAt: 10 * S, detectedAt: 11 * S, recoveredAt: 12 * S, outcome: "recovered" });
    const measured = fault({
      faultAt: 50 * S,
      detectedAt: 50 * S,
      recoveredAt: 51 * S,
      outcome: "recovered",
      progressStep: 49,
      progressAt: 49 * S,
      resumeStep: 49,
      resumedAt: 53 * S,
    });
    expect(jobGoodput([old], { startedAt: 0, now: 100 * S })).toMatchObject({
      basis: "control-plane",
      controlPlaneFaults: 1,
      lostMs: 2 * S,
    });
    expect(jobGoodput([old, measured], { startedAt: 0, now: 100 * S })).toMatchObject({
      basis: "mixed",
      controlPlaneFaults: 1,
      lostMs: 6 * S,
      goodput: 0.94,
    });
  });

  it("an open fault makes goodput fall while the job stays down", () => {
    const hung = fault({ faultAt: 90 * S, detectedAt: 90 * S, progressStep: 60, progressAt: 60 * S });
    expect(jobGoodput([hung], { startedAt: 0, now: 100 * S })).toMatchObject({ goodput: 0.6, openFaults: 1 });
    expect(jobGoodput([hung], { startedAt: 0, now: 200 * S }).goodput).toBeCloseTo(0.3, 6);
  });

  it("clips losses to the job's life", () => {
    const early = fault({
      faultAt: 0,
      detectedAt: 0,
      progressAt: -50 * S,
      resumedAt: 10 * S,
      outcome: "recovered",
    });
    expect(jobGoodput([early], { startedAt: 0, now: 100 * S }).lostMs).toBe(10 * S);
    expect(jobGoodput([early], { startedAt: 0, now: 0 }).goodput).toBe(1);
  });
});

describe("clusterGoodput", () => {
  it("weights each job's goodput by its GPUs and skips jobs without one", () => {
    expect(
      clusterGoodput([
        { gpus: 64, goodput: 0.9 },
        { gpus: 16, goodput: 1 },
        { gpus: 8, goodput: null },
        { gpus: 0, goodput: 0 },
      ]),
    ).toBeCloseTo((64 * 0.9 + 16) / 80, 9);
    expect(clusterGoodput([])).toBeNull();
    expect(clusterGoodput([{ gpus: 4, goodput: null }])).toBeNull();
  });
});
