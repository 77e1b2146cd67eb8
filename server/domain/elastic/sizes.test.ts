import { describe, expect, it } from "vitest";
import { allowedSizes, largestAllowedAtMost, nextSizeAbove, replicasBySpec, stepPods } from "./sizes";

describe("allowedSizes", () => {
  it("steps of replicaIncrementStep from minReplicas up to maxReplicas", () => {
    expect(allowedSizes({ minReplicas: 2, maxReplicas: 8, replicaIncrementStep: 2 })).toEqual([2, 4, 6, 8]);
    expect(allowedSizes({ minReplicas: 1, maxReplicas: 8, replicaIncrementStep: 3 })).toEqual([1, 4, 7]);
  });
  it("a step of 1 when neither field is set", () => {
    expect(allowedSizes({ minReplicas: 2, maxReplicas: 5 })).toEqual([2, 3, 4, 5]);
  });
  it("discrete values between min and max, sorted, with minReplicas always in", () => {
    expect(allowedSizes({ minReplicas: 2, maxReplicas: 8, replicaDiscreteValues: [8, 4, 2] })).toEqual([
      2, 4, 8,
    ]);
    expect(allowedSizes({ minReplicas: 3, maxReplicas: 8, replicaDiscreteValues: [1, 4, 4, 9] })).toEqual([
      3, 4,
    ]);
  });
  it("min equal to max: one size", () => {
    expect(allowedSizes({ minReplicas: 4, maxReplicas: 4, replicaIncrementStep: 2 })).toEqual([4]);
  });
});

describe("largestAllowedAtMost / nextSizeAbove", () => {
  const sizes = [2, 4, 6, 8];
  it("the largest size that fits", () => {
    expect(largestAllowedAtMost(sizes, 7)).toBe(6);
    expect(largestAllowedAtMost(sizes, 8)).toBe(8);
    expect(largestAllowedAtMost(sizes, 100)).toBe(8);
    expect(largestAllowedAtMost(sizes, 1)).toBeNull();
  });
  it("the next size up", () => {
    expect(nextSizeAbove(sizes, 2)).toBe(4);
    expect(nextSizeAbove(sizes, 3)).toBe(4);
    expect(nextSizeAbove(sizes, 8)).toBeNull();
  });
});

describe("replicasBySpec", () => {
  it("one replica spec holds the whole size", () => {
    expect(replicasBySpec([{ name: "worker", replicas: 2, maxReplicas: 8 }], 6, 8)).toEqual({ worker: 6 });
    expect(replicasBySpec([{ name: "worker", replicas: 2 }], 6, 8)).toEqual({ worker: 6 });
  });
  it("partial preemption: base filled first, elastic holds the rest", () => {
    const specs = [
      { name: "base", replicas: 2 },
      { name: "elastic", replicas: 0, maxReplicas: 6 },
    ];
    expect(replicasBySpec(specs, 2, 8)).toEqual({ base: 2, elastic: 0 });
    expect(replicasBySpec(specs, 5, 8)).toEqual({ base: 2, elastic: 3 });
    expect(replicasBySpec(specs, 8, 8)).toEqual({ base: 2, elastic: 6 });
    expect(replicasBySpec(specs, 20, 8)).toEqual({ base: 2, elastic: 6 });
    expect(replicasBySpec(specs, 1, 8)).toEqual({ base: 1, elastic: 0 });
  });
});

describe("stepPods", () => {
  it("the pods a step adds, per replica spec", () => {
    const specs = [
      { name: "base", replicas: 2, maxReplicas: 3 },
      { name: "elastic", replicas: 0, maxReplicas: 6 },
    ];
    expect(stepPods({ specs, from: 2, to: 4, policyMax: 9 })).toEqual({ base: 1, elastic: 1 });
    expect(stepPods({ specs, from: 4, to: 9, policyMax: 9 })).toEqual({ elastic: 5 });
  });
});
