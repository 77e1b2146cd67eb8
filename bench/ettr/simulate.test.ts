import { describe, expect, it } from "vitest";
import { type Cause, LLAMA3_CAUSES } from "./causes";
import { defaultCosts, type TrainerCosts } from "./costs";
import { type FaultDraw, faultDraws, LOSS_KINDS, simulate } from "./simulate";

const HOUR = 3600;
const causes: Cause[] = [
  { name: "GPU", category: "GPU", count: 1, printedPercent: 50, path: "replace" },
  { name: "bug", category: "Dependency", count: 1, printedPercent: 50, path: "inplace" },
];
const costs: TrainerCosts = {
  stepS: 10,
  checkpointIntervalS: 1000,
  processStartS: 20,
  podStartS: 40,
  ncclInitS: 30,
  checkpointLoadS: 50,
  peerLoadS: 1,
};
const samples = { replace: [3], inplace: [2] };
const totalLost = (lost: Record<string, number>) => Object.values(lost).reduce((a, b) => a + b, 0);

describe("the ETTR simulation", () => {
  it("is 1 with no faults", () => {
    const result = simulate({ mode: "peer", wallS: 30 * 24 * HOUR, causes, costs, samples }, []);
    expect(result.ettr).toBe(1);
    expect(result.faults).toBe(0);
    expect(totalLost(result.lost)).toBe(0);
  });

  it("loses exactly the fixed costs and the training since the checkpoint, per mode", () => {
    // Faults 1,234 s and 2,500 s of training apart: one node fault, one software fault.
    const draws: FaultDraw[] = [
      { gapS: 1234, cause: 0, sampleU: 0 },
      { gapS: 2500, cause: 1, sampleU: 0.99 },
    ];
    const wallS = 10 * HOUR;
    const inplace = simulate({ mode: "inplace", wallS, causes, costs, samples }, draws);
    // Progress 1,234 → back to 1,000 (234 lost); then 1,000 + 2,500 = 3,500 → back to 3,000 (500 lost).
    expect(inplace.lost).toEqual({
      controlPlane: 3 + 2,
      processStart: 20 + 40 + 20,
      ncclInit: 60,
      stateLoad: 100,
      lostSteps: 234 + 500,
    });
    expect(inplace.progressS).toBeCloseTo(wallS - totalLost(inplace.lost), 9);
    expect(inplace.byPath).toEqual({ replace: 1, inplace: 1 });

    const peer = simulate({ mode: "peer", wallS, causes, costs, samples }, draws);
    // Only the step in progress: 1,234 mod 10 = 4; (1,230 + 2,500) mod 10 = 0.
    expect(peer.lost.lostSteps).toBeCloseTo(4, 9);
    expect(peer.lost.stateLoad).toBe(2);

    const full = simulate({ mode: "full", wallS, causes, costs, samples }, draws);
    // A full restart recreates every pod: pod start each fault; without full-restart samples, the node path's.
    expect(full.lost.controlPlane).toBe(6);
    expect(full.lost.processStart).toBe(120);
    const measuredFull = simulate(
      { mode: "full", wallS, causes, costs, samples: { ...samples, full: [9] } },
      draws,
    );
    expect(measuredFull.lost.controlPlane).toBe(18);
  });

  it("accounts for every second of the run, and stops a recovery at the run's end", () => {
    const draws: FaultDraw[] = [{ gapS: 990, cause: 0, sampleU: 0 }];
    const result = simulate({ mode: "inplace", wallS: 1000, causes, costs, samples }, draws);
    expect(result.lost.controlPlane).toBe(3);
    expect(result.lost.processStart).toBe(7);
    expect(result.lost.ncclInit).toBe(0);
    expect(result.progressS + totalLost(result.lost)).toBeCloseTo(1000, 9);
  });

  it("gives the same run for the same seed and another for another", () => {
    const input = {
      mode: "peer" as const,
      wallS: 30 * 24 * HOUR,
      causes: LLAMA3_CAUSES,
      costs: defaultCosts(),
      samples,
    };
    const run = (seed: number) =>
      simulate(input, faultDraws({ seed, mttfS: 1.8 * HOUR, causes: LLAMA3_CAUSES }));
    expect(run(7)).toEqual(run(7));
    expect(run(8).ettr).not.toBe(run(7).ettr);
  });

  it("draws about wall / MTTF faults, in the mix's proportions", () => {
    const wallS = 2000 * 24 * HOUR;
    const result = simulate(
      { mode: "peer", wallS, causes: LLAMA3_CAUSES, costs: defaultCosts(), samples },
      faultDraws({ seed: 1, mttfS: 1.8 * HOUR, causes: LLAMA3_CAUSES }),
    );
    const expected = (wallS - totalLost(result.lost)) / (1.8 * HOUR);
    expect(Math.abs(result.faults - expected) / expected).toBeLessThan(0.03);
    // 63 of 419 are software (bug 54, NCCL watchdog 7, dependency 2): the rest replace a pod.
    const inplaceShare = result.byPath.inplace / result.faults;
    expect(Math.abs(inplaceShare - 63 / 419)).toBeLessThan(0.02);
  });

  it("lists every loss kind it reports", () => {
    const result = simulate({ mode: "full", wallS: 100, causes, costs, samples }, []);
    expect(Object.keys(result.lost).sort()).toEqual([...LOSS_KINDS].sort());
  });
});
