import { describe, expect, it } from "vitest";
import type { ClusterNode } from "@/server/cluster/types";
import { createCapacityIndex, createReservations, pickNode } from "./placement";

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

describe("createCapacityIndex", () => {
  /** A small deterministic generator, so a failure can be replayed. */
  const randomInts = (seed: number) => (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return Math.floor((seed / 2 ** 31) * n);
  };
  const oneIn = (int: (n: number) => number, n: number) => int(n) === 0;

  function randomNodes(int: (n: number) => number): ClusterNode[] {
    return Array.from({ length: 12 }, (_, i) => ({
      ...node(`n${i}`, oneIn(int, 5) ? "UnschedulablePendingReboot" : "Schedulable"),
      ready: !oneIn(int, 8),
      ...(oneIn(int, 3) ? { instanceType: "p5" } : {}),
    }));
  }

  /** Usage with reservations held on top, as createReservations passes it. */
  function withHolds(int: (n: number) => number, base: Map<string, number>): Map<string, number> {
    const used = new Map(base);
    for (let held = int(3); held > 0; held -= 1) {
      const on = `n${int(12)}`;
      used.set(on, (used.get(on) ?? 0) + 2);
    }
    return used;
  }

  function randomPick(int: (n: number) => number, used: Map<string, number>) {
    return {
      used,
      gpus: 1 + int(8),
      avoid: oneIn(int, 2) ? [`n${int(12)}`] : [],
      prefer: oneIn(int, 3) ? `n${int(12)}` : null,
      instanceType: oneIn(int, 4) ? "p5" : null,
    };
  }

  it("picks as pickNode does (the preferred node, else one as free as pickNode's), whatever the usage", () => {
    const int = randomInts(7);
    const nodes = randomNodes(int);
    const base = new Map<string, number>();
    const index = createCapacityIndex(() => base);
    for (const n of nodes) index.setNode(n.name, n);
    for (let round = 0; round < 400; round += 1) {
      const name = `n${int(12)}`;
      base.set(name, int(9));
      index.usageChanged(name);
      const which = int(12);
      const changed = { ...(nodes[which] as ClusterNode), ready: int(4) !== 0 };
      nodes[which] = changed;
      index.setNode(changed.name, changed);
      const opts = randomPick(int, withHolds(int, base));
      const expected = pickNode({ nodes, ...opts });
      const picked = index.pick(opts);
      const free = (chosen: string | null) => (chosen === null ? null : 8 - (opts.used.get(chosen) ?? 0));
      expect(free(picked)).toBe(free(expected));
      if (expected === opts.prefer) expect(picked).toBe(opts.prefer);
    }
  });

  it("forgets a node that went, and places nothing on an unhealthy one", () => {
    const index = createCapacityIndex(() => new Map());
    index.setNode("a", node("a"));
    index.setNode("b", node("b", "UnschedulablePendingReboot"));
    const pick = () => index.pick({ used: new Map(), gpus: 8, avoid: [], prefer: "b" });
    expect(pick()).toBe("a");
    index.setNode("a", undefined);
    expect(pick()).toBeNull();
  });
});
