import { describe, expect, it } from "vitest";
import { standInOwner } from "@/server/cluster/kubernetes/testing/stand-in-partition";
import { childLogFile, childOf, sumCounts } from "./agents";

describe("the stand-in agents' children", () => {
  it("send a pod's requests to the child that serves it", () => {
    const pods = Array.from({ length: 64 }, (_, i) => ({ namespace: "ns", pod: `bench-k8s-workers-${i}` }));
    for (const pod of pods) {
      expect(childOf(pod, 4)).toBe(standInOwner({ namespace: "ns", name: pod.pod }, 4));
      expect(childOf(pod, 1)).toBe(0);
    }
    expect(new Set(pods.map((pod) => childOf(pod, 4)))).toEqual(new Set([0, 1, 2, 3]));
  });

  it("add up their counts", () => {
    expect(
      sumCounts([
        { count: 3, started: 4 },
        { count: 2, started: 2 },
      ]),
    ).toEqual({ count: 5, started: 6 });
    expect(sumCounts([])).toEqual({ count: 0, started: 0 });
  });

  it("keep one log each", () => {
    expect(childLogFile("/tmp/x/agents.log", 0, 1)).toBe("/tmp/x/agents.log");
    expect(childLogFile("/tmp/x/agents.log", 2, 4)).toBe("/tmp/x/agents-2.log");
    expect(childLogFile("/tmp/x/agents", 1, 2)).toBe("/tmp/x/agents-1");
  });
});
