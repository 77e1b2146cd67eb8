import { describe, expect, it } from "vitest";
import type { RankView, TopologyView } from "@/server/domain/jobs/view-model";
import { syntheticRank, syntheticTopology } from "./testing";
import { nodeLabels, shortenLabel } from "./topology-labels";
import {
  CELL_SIZES,
  groupRanks,
  LABEL_CHAR_WIDTH,
  labelAt,
  rankAt,
  sameLayoutShape,
  topologyLayout,
} from "./topology-layout";

describe("topologyLayout", () => {
  it("places every rank exactly once, inside its node's block, without overlaps", () => {
    const topology = syntheticTopology(4, 8);
    const layout = topologyLayout(topology, 600);
    expect(layout.cells).toHaveLength(32);
    expect(new Set(layout.cells.map((cell) => cell.index)).size).toBe(32);
    expect(layout.blocks.map((block) => block.node)).toEqual(["node-0", "node-1", "node-2", "node-3"]);
    for (const block of layout.blocks) {
      const cells = layout.cells.slice(block.first, block.first + block.count);
      expect(cells).toHaveLength(8);
      for (const cell of cells) {
        expect(topology.ranks[cell.index]?.node).toBe(block.node);
        expect(cell.x).toBeGreaterThanOrEqual(block.x);
        expect(cell.x + layout.cellSize).toBeLessThanOrEqual(block.x + block.width);
        expect(cell.y + layout.cellSize).toBeLessThanOrEqual(block.y + block.height);
      }
    }
    const corners = new Set(layout.cells.map((cell) => `${cell.x},${cell.y}`));
    expect(corners.size).toBe(32);
  });

  it("uses large cells for a small job and wraps blocks at the width", () => {
    const layout = topologyLayout(syntheticTopology(4, 8), 300);
    expect(layout.cellSize).toBe(CELL_SIZES[0]);
    const rows = new Set(layout.blocks.map((block) => block.y));
    expect(rows.size).toBeGreaterThan(1);
    for (const block of layout.blocks) expect(block.x + block.width).toBeLessThanOrEqual(300);
  });

  it("fits 256 nodes × 8 ranks in the height budget by shrinking cells", () => {
    const layout = topologyLayout(syntheticTopology(256, 8), 1150);
    expect(layout.cells).toHaveLength(2048);
    expect(layout.cellSize).toBeLessThan(CELL_SIZES[0]);
    expect(layout.height).toBeLessThanOrEqual(560);
  });

  it("orders ranks by local rank within a pod and starts a new row per pod", () => {
    const topology: TopologyView = {
      nodes: [{ name: "n", health: "", ready: true, healthy: false, gpus: 4, gpusUsed: 4, pods: ["a", "b"] }],
      pods: [
        { name: "a", node: "n", phase: "Running", agentState: "running", ranks: [0, 1] },
        { name: "b", node: "n", phase: "Running", agentState: "running", ranks: [2, 3] },
      ],
      ranks: [
        syntheticRank({ rank: 3, localRank: 1, pod: "b", node: "n" }),
        syntheticRank({ rank: 1, localRank: 1, pod: "a", node: "n" }),
        syntheticRank({ rank: 0, localRank: 0, pod: "a", node: "n" }),
        syntheticRank({ rank: 2, localRank: 0, pod: "b", node: "n" }),
      ],
    };
    const layout = topologyLayout(topology, 400);
    expect(layout.cells.map((cell) => cell.rank)).toEqual([0, 1, 2, 3]);
    const [c0, c1, c2] = layout.cells;
    expect(c1?.y).toBe(c0?.y);
    expect(c2?.y).toBeGreaterThan(c0?.y ?? 0);
    expect(layout.blocks[0]?.ok).toBe(false);
  });

  it("groups ranks with no node last, under a label of their own, using the pod's node when known", () => {
    const topology: TopologyView = {
      nodes: [],
      pods: [{ name: "p1", node: "late", phase: "Running", agentState: null, ranks: [1] }],
      ranks: [
        syntheticRank({ rank: 0, pod: "p0", node: null }),
        syntheticRank({ rank: 1, pod: "p1", node: null }),
      ],
    };
    const groups = groupRanks(topology);
    expect(groups.map((group) => group.node)).toEqual(["late", null]);
    const unscheduled = topologyLayout(topology, 400).blocks[1];
    expect(unscheduled?.node).toBeNull();
    expect(unscheduled?.label).toBe("(no node)");
  });

  it("handles an empty job", () => {
    const layout = topologyLayout({ nodes: [], pods: [], ranks: [] }, 400);
    expect(layout.cells).toEqual([]);
    expect(layout.height).toBe(0);
  });
});

describe("rankAt", () => {
  const layout = topologyLayout(syntheticTopology(16, 8), 800);

  it("finds the cell under a point, including at its edges", () => {
    for (const cell of [layout.cells[0], layout.cells[77], layout.cells[127]]) {
      if (!cell) throw new Error("missing cell");
      expect(rankAt(layout, cell.x + 1, cell.y + 1)?.rank).toBe(cell.rank);
      expect(rankAt(layout, cell.x, cell.y)?.rank).toBe(cell.rank);
      expect(rankAt(layout, cell.x + layout.cellSize - 0.01, cell.y + layout.cellSize - 0.01)?.rank).toBe(
        cell.rank,
      );
    }
  });

  it("misses gaps, labels and points outside", () => {
    const first = layout.cells[0];
    const block = layout.blocks[0];
    if (!first || !block) throw new Error("missing cell");
    expect(rankAt(layout, first.x + layout.cellSize + layout.gap / 2, first.y + 1)).toBeNull();
    expect(rankAt(layout, block.x + 2, block.y + 2)).toBeNull();
    expect(rankAt(layout, -5, -5)).toBeNull();
    expect(rankAt(layout, 5000, 5000)).toBeNull();
  });
});

describe("shortenLabel", () => {
  it("keeps both ends", () => {
    expect(shortenLabel("node-1", 10)).toBe("node-1");
    expect(shortenLabel("ip-10-0-12-3.ec2.internal", 11)).toBe("ip-10…ernal");
    expect(shortenLabel("abcdef", 1)).toBe("…");
    expect(shortenLabel("abcdef", 0)).toBe("");
  });
});

/** A topology of `names.length` nodes with `perNode` ranks each, nodes named `names`. */
function namedTopology(names: readonly string[], perNode: number): TopologyView {
  const base = syntheticTopology(names.length, perNode);
  const rename = (node: string | null) => (node === null ? null : (names[Number(node.slice(5))] ?? node));
  return {
    nodes: base.nodes.map((node) => ({ ...node, name: rename(node.name) ?? node.name })),
    pods: base.pods.map((pod) => ({ ...pod, node: rename(pod.node) })),
    ranks: base.ranks.map((rank) => ({ ...rank, node: rename(rank.node) })),
  };
}

describe("node labels (issue 36 item 2)", () => {
  it("shows the local back end's node names whole, the blocks widened to fit them", () => {
    // The demo job's layout on the local back end: 2 nodes × 4 ranks, once cut to "local…de-0".
    const layout = topologyLayout(namedTopology(["local-node-0", "local-node-1"], 4), 1100);
    expect(layout.blocks.map((block) => block.label)).toEqual(["local-node-0", "local-node-1"]);
    for (const block of layout.blocks) {
      expect(block.label.length * LABEL_CHAR_WIDTH).toBeLessThanOrEqual(block.width - 8);
    }
  });

  it("labels long names by the part that tells them apart, cut at a separator", () => {
    const names = ["ip-10-0-12-3.ec2.internal", "ip-10-0-12-17.ec2.internal", "ip-10-0-9-200.ec2.internal"];
    const layout = topologyLayout(namedTopology(names, 8), 1100);
    expect(layout.blocks.map((block) => block.label)).toEqual(["…12-3…", "…12-17…", "…9-200…"]);
    expect(nodeLabels(["gpu-a.example", "gpu-b.example"]).labels.get("gpu-a.example")).toBe("gpu-a.example");
    expect(nodeLabels(["a-very-long-node-name-01", "b-very-long-node-name-02"]).labels).toEqual(
      new Map([
        ["a-very-long-node-name-01", "a-very-l…name-01"],
        ["b-very-long-node-name-02", "b-very-l…name-02"],
      ]),
    );
  });

  it("names the block under a label row, for the full name on hover", () => {
    const layout = topologyLayout(namedTopology(["local-node-0", "local-node-1"], 4), 1100);
    const second = layout.blocks[1];
    if (!second) throw new Error("expected two blocks");
    expect(labelAt(layout, second.x + 6, second.y + 6)?.node).toBe("local-node-1");
    expect(labelAt(layout, second.x + 6, second.y + second.height - 2)).toBeNull();
  });
});

describe("sameLayoutShape", () => {
  const base = syntheticTopology(4, 8);
  const withRank = (index: number, change: Partial<RankView>): TopologyView => ({
    ...base,
    ranks: base.ranks.map((rank, i) => (i === index ? { ...rank, ...change } : rank)),
  });

  it("keeps the layout while only what a rank shows changes", () => {
    expect(
      sameLayoutShape(base, withRank(5, { health: "hanging", step: 99, lastLine: "x", restarts: 2 })),
    ).toBe(true);
    expect(topologyLayout(withRank(5, { health: "faulted" }), 600)).toEqual(topologyLayout(base, 600));
  });

  it("lays out again when a rank moves, a pod or node changes, or the counts do", () => {
    expect(sameLayoutShape(base, withRank(5, { pod: "elsewhere" }))).toBe(false);
    expect(sameLayoutShape(base, withRank(5, { node: "node-9" }))).toBe(false);
    expect(sameLayoutShape(base, withRank(5, { rank: 77 }))).toBe(false);
    expect(sameLayoutShape(base, { ...base, ranks: base.ranks.slice(1) })).toBe(false);
    const pods = base.pods.map((pod, i) => (i === 0 ? { ...pod, node: "node-3" } : pod));
    expect(sameLayoutShape(base, { ...base, pods })).toBe(false);
    const nodes = base.nodes.map((node, i) => (i === 2 ? { ...node, healthy: !node.healthy } : node));
    expect(sameLayoutShape(base, { ...base, nodes })).toBe(false);
  });
});
