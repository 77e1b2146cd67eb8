import { describe, expect, it } from "vitest";
import type { ClusterNode } from "@/server/cluster/types";
import { createReservations, pickNode } from "./placement";

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

  it("keeps to the instance type the job was admitted on (its Kueue flavor), even over a preferred node", () => {
    const typed = [
      { ...node("g5-a"), instanceType: "ml.g5.48xlarge" },
      { ...node("p5-a"), instanceType: "ml.p5.48xlarge" },
      { ...node("p5-b"), instanceType: "ml.p5.48xlarge" },
    ];
    const used = new Map([["p5-a", 8]]);
    const pick = (instanceType: string | null, prefer: string | null = null) =>
      pickNode({ nodes: typed, used, gpus: 4, avoid: [], prefer, instanceType });
    expect(pick("ml.p5.48xlarge", "g5-a")).toBe("p5-b");
    expect(pick("ml.g5.48xlarge")).toBe("g5-a");
    expect(pick("ml.trn1.32xlarge")).toBeNull();
    expect(pick(null, "g5-a")).toBe("g5-a");
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

describe("createReservations", () => {
  /** A fake back end's pod list: a pod appears on its node when its create resolves. */
  function cluster() {
    const used = new Map<string, number>();
    const reservations = createReservations(() => used);
    const choose = (gpus: number) => (inUse: ReadonlyMap<string, number>) =>
      pickNode({ nodes: [node("a"), node("b")], used: inUse, gpus, avoid: [], prefer: null });
    const create = (gpus: number, outcome: "created" | "failed" = "created") =>
      reservations.pick(choose(gpus), gpus, async (name) => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        if (outcome === "failed") throw new Error("create failed");
        used.set(name, (used.get(name) ?? 0) + gpus);
        return name;
      });
    return { used, create };
  }

  it("never gives two pods created at the same time the same room", async () => {
    const { create } = cluster();
    // Each node has room for one 8-GPU pod: the third finds none, even though no create has finished yet.
    expect(await Promise.all([create(8), create(8), create(8)])).toEqual(["a", "b", null]);
  });

  it("spreads concurrent small pods as one-at-a-time creates would", async () => {
    const { create, used } = cluster();
    const placed = await Promise.all([create(4), create(4), create(4), create(4)]);
    expect(placed.sort()).toEqual(["a", "a", "b", "b"]);
    expect(used).toEqual(
      new Map([
        ["a", 8],
        ["b", 8],
      ]),
    );
  });

  it("releases the room of a create that failed", async () => {
    const { create } = cluster();
    await expect(create(8, "failed")).rejects.toThrow("create failed");
    expect(await Promise.all([create(8), create(8)])).toEqual(["a", "b"]);
  });
});
