import { describe, expect, it } from "vitest";
import type { ClusterNode } from "@/server/cluster/types";
import { pickNode } from "./placement";

const node = (name: string, health = "Schedulable"): ClusterNode => ({
  name,
  health,
  ready: true,
  gpus: 8,
  changedAt: 0,
});
const nodes = [node("n0"), node("n1"), node("n2", "UnschedulablePendingReboot"), node("n3")];

describe("pickNode", () => {
  it("spreads onto the node with the most free GPUs, skipping unhealthy and avoided nodes", () => {
    const used = new Map([
      ["n0", 4],
      ["n1", 0],
      ["n3", 2],
    ]);
    expect(pickNode({ nodes, used, gpus: 4, avoid: [], prefer: null })).toBe("n1");
    expect(pickNode({ nodes, used, gpus: 4, avoid: ["n1"], prefer: null })).toBe("n3");
  });

  it("takes the preferred node when it fits, and refuses when nothing fits", () => {
    const used = new Map([["n0", 4]]);
    expect(pickNode({ nodes, used, gpus: 4, avoid: [], prefer: "n0" })).toBe("n0");
    expect(pickNode({ nodes, used, gpus: 4, avoid: [], prefer: "n2" })).toBe("n1");
    const full = new Map([
      ["n0", 8],
      ["n1", 6],
      ["n3", 8],
    ]);
    expect(pickNode({ nodes, used: full, gpus: 4, avoid: [], prefer: null })).toBeNull();
  });
});
