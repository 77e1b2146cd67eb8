import { describe, expect, it } from "vitest";
import { podName } from "../objects";
import { checkPartition, ownsPod, standInOwner } from "./stand-in-partition";

const NAMESPACE = "hyperpod-ns-llm-research";
const jobPods = (job: string, count: number) =>
  Array.from({ length: count }, (_, index) => ({
    namespace: NAMESPACE,
    name: podName(job, "workers", index),
  }));

describe("stand-in partition", () => {
  it("gives every pod to exactly one part", () => {
    const pods = [...jobPods("bench-k8s", 300), { namespace: "other", name: "no-index" }];
    for (const count of [1, 2, 3, 4, 7]) {
      for (const pod of pods) {
        const owners = Array.from({ length: count }, (_, index) => index).filter((index) =>
          ownsPod({ index, count }, pod),
        );
        expect(owners).toEqual([standInOwner(pod, count)]);
      }
    }
  });

  it("is stable: the same owner for the same pod, whatever else exists (a replacement keeps its name)", () => {
    const pod = { namespace: NAMESPACE, name: "bench-k8s-workers-17" };
    expect(standInOwner({ ...pod }, 4)).toBe(standInOwner(pod, 4));
    // Pinned: the owner is a function of the name alone (FNV-1a of namespace/prefix, plus the index).
    expect(jobPods("bench-k8s", 6).map((each) => standInOwner(each, 4))).toEqual([2, 3, 0, 1, 2, 3]);
    expect(standInOwner({ namespace: "a", name: "b" }, 4)).toBe(1);
    expect(standInOwner({ namespace: "a", name: "b" }, 7)).toBe(2);
    expect(standInOwner(pod, 1)).toBe(0);
  });

  it("splits a job's pods evenly, by their index", () => {
    for (const [pods, count] of [
      [2048, 4],
      [256, 4],
      [1024, 3],
      [10, 4],
    ] as const) {
      const sizes = Array.from({ length: count }, () => 0);
      for (const pod of jobPods("bench-k8s", pods)) {
        const owner = standInOwner(pod, count);
        sizes[owner] = (sizes[owner] ?? 0) + 1;
      }
      expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
    }
  });

  it("starts different jobs at different parts, and tells namespaces apart", () => {
    const firsts = new Set(
      Array.from({ length: 20 }, (_, job) =>
        standInOwner({ namespace: NAMESPACE, name: `job-${job}-workers-0` }, 4),
      ),
    );
    expect(firsts.size).toBeGreaterThan(1);
    const namespaces = new Set(
      Array.from({ length: 20 }, (_, ns) =>
        standInOwner({ namespace: `ns-${ns}`, name: "job-workers-0" }, 4),
      ),
    );
    expect(namespaces.size).toBeGreaterThan(1);
  });

  it("spreads names without an index by their hash", () => {
    const sizes = [0, 0, 0, 0];
    for (let i = 0; i < 400; i += 1) {
      const owner = standInOwner({ namespace: NAMESPACE, name: `pod-${i}x` }, 4);
      sizes[owner] = (sizes[owner] ?? 0) + 1;
    }
    expect(Math.min(...sizes)).toBeGreaterThan(60);
  });

  it("refuses a part outside its count", () => {
    expect(() => checkPartition({ index: 4, count: 4 })).toThrow(/0 <= index < count/);
    expect(() => checkPartition({ index: -1, count: 4 })).toThrow();
    expect(() => checkPartition({ index: 0, count: 0 })).toThrow();
    expect(() => checkPartition({ index: 0.5, count: 2 })).toThrow();
    expect(() => standInOwner({ namespace: "a", name: "b-1" }, 0)).toThrow();
    expect(checkPartition({ index: 3, count: 4 })).toEqual({ index: 3, count: 4 });
  });
});
