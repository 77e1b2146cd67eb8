import { describe, expect, it } from "vitest";
import {
  firstStartAt,
  idleGpuUse,
  parseTrainerLine,
  ranksTraining,
  stepsRedone,
  type TrainerLine,
  trainingAt,
} from "./usage";

describe("idleGpuUse", () => {
  it("integrates idle and used GPUs over time; used never counts above idle", () => {
    const hour = 3_600_000;
    const use = idleGpuUse([
      { at: 0, idleGpus: 8, usedGpus: 8 },
      { at: hour, idleGpus: 16, usedGpus: 8 },
      { at: 2 * hour, idleGpus: 8, usedGpus: 12 },
      { at: 3 * hour, idleGpus: 0, usedGpus: 0 },
    ]);
    expect(use.idleGpuHours).toBe(32);
    expect(use.usedGpuHours).toBe(24);
    expect(use.ratio).toBe(0.75);
  });

  it("no idle capacity at all: no ratio", () => {
    expect(idleGpuUse([{ at: 0, idleGpus: 0, usedGpus: 0 }]).ratio).toBeNaN();
  });
});

describe("parseTrainerLine", () => {
  it("reads a start line's world size and a good step; a NaN step is not training", () => {
    expect(
      parseTrainerLine("[default0]:training started rank=6 local_rank=0 world_size=8 restart=0", 5),
    ).toEqual({
      kind: "start",
      at: 5,
      rank: 6,
      worldSize: 8,
    });
    expect(parseTrainerLine("[default1]:step=9 loss=2.1000 throughput=1200.0 samples/s rank=7", 6)).toEqual({
      kind: "step",
      at: 6,
      rank: 7,
      step: 9,
    });
    expect(parseTrainerLine("step=9 loss=nan throughput=60.0 samples/s rank=7", 6)).toBeNull();
  });
});

describe("trainingAt", () => {
  const start = (at: number, rank: number, worldSize: number): TrainerLine => ({
    kind: "start",
    at,
    rank,
    worldSize,
  });
  const step = (at: number, rank: number): TrainerLine => ({ kind: "step", at, rank, step: 1 });

  it("is the last new-size rank's first step after it started at that size", () => {
    const lines = [
      step(5, 0),
      start(10, 0, 4),
      start(11, 1, 4),
      start(12, 2, 4),
      step(20, 0),
      step(21, 1),
      step(22, 0),
      start(23, 3, 4),
      step(30, 2),
      step(40, 3),
    ];
    expect(trainingAt(lines, { worldSize: 4, after: 0 })).toBe(40);
    expect(trainingAt(lines.slice(0, -1), { worldSize: 4, after: 0 })).toBeNull();
  });

  it("a rank that started again at another size does not count for this one", () => {
    const lines = [start(10, 0, 2), start(11, 1, 2), step(20, 0), start(21, 1, 4), step(22, 1)];
    expect(trainingAt(lines, { worldSize: 2, after: 0 })).toBeNull();
  });
});

describe("firstStartAt", () => {
  it("is the first start at that world size after the moment", () => {
    const lines: TrainerLine[] = [
      { kind: "start", at: 5, rank: 0, worldSize: 4 },
      { kind: "start", at: 15, rank: 1, worldSize: 8 },
      { kind: "start", at: 25, rank: 0, worldSize: 4 },
    ];
    expect(firstStartAt(lines, { worldSize: 4, after: 10 })).toBe(25);
    expect(firstStartAt(lines, { worldSize: 2, after: 0 })).toBeNull();
  });
});

describe("stepsRedone", () => {
  it("counts the steps a rank printed again after going back", () => {
    const steps = [1, 2, 3, 4, 3, 4, 5, 6, 6, 7].map(
      (step, at): TrainerLine => ({ kind: "step", at, rank: 0, step }),
    );
    expect(stepsRedone(steps, 0)).toBe(3);
    expect(stepsRedone(steps, 1)).toBe(0);
  });
});

describe("ranksTraining", () => {
  it("counts ranks with a step within the window", () => {
    const last = new Map([
      [0, 1000],
      [1, 400],
      [2, 950],
    ]);
    expect(ranksTraining(last, { at: 1000, withinMs: 500 })).toBe(2);
  });
});
