import type { RankView, TopologyView } from "@/server/domain/jobs/view-model";
import { nodeLabels } from "./topology-labels";

/**
 * Where each rank's cell goes on the topology canvas: a compact grid of node blocks, each with a label row
 * (the node's name, or the part of it that tells the job's nodes apart: topology-labels.ts; each block is
 * wide enough for its label) and one row of cells per pod (wrapped past MAX_COLUMNS), flowing left to right and
 * wrapping at the canvas width. Pure and O(n log n) (one sort), so it is unit-tested and cheap enough to
 * recompute on every 1 Hz update; drawing (topology-draw.ts) and hit-testing (rankAt) only read it.
 *
 * The cell size shrinks (14 → 6 px) until the whole job fits `maxHeight`, so 8 ranks show large and
 * 2,048 ranks (256 nodes × 8) stay within a screen.
 */

export type TopologyCell = {
  /** Index into topology.ranks (for O(1) lookup when drawing). */
  index: number;
  rank: number;
  x: number;
  y: number;
};

export type TopologyBlock = {
  /** Node name; null for ranks on no node yet (pending pods). */
  node: string | null;
  label: string;
  /** The node is Ready and healthy (false draws an alarm border); true for unknown nodes. */
  ok: boolean;
  x: number;
  y: number;
  width: number;
  height: number;
  /** This block's cells are layout.cells[first … first + count − 1]. */
  first: number;
  count: number;
};

export type TopologyLayout = {
  width: number;
  height: number;
  cellSize: number;
  gap: number;
  blocks: TopologyBlock[];
  cells: TopologyCell[];
};

export const CELL_SIZES = [14, 12, 10, 8, 6] as const;
export const MAX_COLUMNS = 16;
export const LABEL_HEIGHT = 14;
/** Label font is monospace at 10 px: about 6 px per character, so labels can be shortened without a canvas. */
export const LABEL_CHAR_WIDTH = 6;
/** Blocks stay wide enough for a few characters of the node name, even with one rank per node. */
const MIN_LABEL_CHARS = 6;
const PAD = 4;
const BLOCK_GAP = 6;
const POD_GAP = 3;
const UNSCHEDULED = "(no node)";

type Placed = { index: number; rank: number; node: string | null; pod: string };
type Group = { node: string | null; pods: Placed[][] };

function nodeOf(rank: RankView, podNodes: ReadonlyMap<string, string | null>): string | null {
  return rank.node ?? podNodes.get(rank.pod) ?? null;
}

/** Ranks grouped by node then pod, in the topology's node and pod order, ranks in local-rank order. */
export function groupRanks(topology: TopologyView): Group[] {
  const nodeOrder = new Map(topology.nodes.map((node, i) => [node.name, i]));
  const podOrder = new Map(topology.pods.map((pod, i) => [pod.name, i]));
  const podNodes = new Map(topology.pods.map((pod) => [pod.name, pod.node]));
  const orderOf = (map: Map<string, number>, key: string) => {
    if (!map.has(key)) map.set(key, map.size);
    return map.get(key) ?? 0;
  };
  const keyed = topology.ranks.map((rank, index) => {
    const node = nodeOf(rank, podNodes);
    const nodeKey = node === null ? Number.MAX_SAFE_INTEGER : orderOf(nodeOrder, node);
    return { index, rank, node, nodeKey, podKey: orderOf(podOrder, rank.pod) };
  });
  keyed.sort(
    (a, b) =>
      a.nodeKey - b.nodeKey ||
      a.podKey - b.podKey ||
      a.rank.localRank - b.rank.localRank ||
      a.rank.rank - b.rank.rank,
  );
  const groups: Group[] = [];
  for (const { index, rank, node } of keyed) {
    let group = groups[groups.length - 1];
    if (!group || group.node !== node) {
      group = { node, pods: [] };
      groups.push(group);
    }
    const pod = group.pods[group.pods.length - 1];
    const placed = { index, rank: rank.rank, node, pod: rank.pod };
    if (pod && pod[0]?.pod === rank.pod) pod.push(placed);
    else group.pods.push([placed]);
  }
  return groups;
}

type Flow = { x: number; y: number; rowHeight: number };

function placeGroups(groups: readonly Group[], width: number, cellSize: number, ctx: BlockContext) {
  const columns = Math.min(MAX_COLUMNS, Math.max(1, ...groups.flatMap((g) => g.pods.map((p) => p.length))));
  const gap = cellSize >= 10 ? 2 : 1;
  const pitch = cellSize + gap;
  const labelChars = Math.max(MIN_LABEL_CHARS, ctx.labelChars);
  const blockWidth = PAD * 2 + Math.max(columns * pitch - gap, labelChars * LABEL_CHAR_WIDTH);
  const flow: Flow = { x: 0, y: 0, rowHeight: 0 };
  const blocks: TopologyBlock[] = [];
  const cells: TopologyCell[] = [];
  for (const group of groups) {
    const rows = group.pods.reduce((sum, pod) => sum + Math.ceil(pod.length / columns), 0);
    const height = PAD * 2 + LABEL_HEIGHT + rows * pitch - gap + (group.pods.length - 1) * POD_GAP;
    if (flow.x > 0 && flow.x + blockWidth > width) {
      flow.x = 0;
      flow.y += flow.rowHeight + BLOCK_GAP;
      flow.rowHeight = 0;
    }
    const block = makeBlock({ group, x: flow.x, y: flow.y, width: blockWidth, height, ctx });
    block.first = cells.length;
    placeCells({ group, block, columns, pitch, cells });
    blocks.push(block);
    flow.x += blockWidth + BLOCK_GAP;
    flow.rowHeight = Math.max(flow.rowHeight, height);
  }
  return { blocks, cells, gap, height: flow.y + flow.rowHeight };
}

type BlockContext = {
  unhealthy: ReadonlySet<string>;
  labels: ReadonlyMap<string, string>;
  labelChars: number;
};

function makeBlock(args: {
  group: Group;
  x: number;
  y: number;
  width: number;
  height: number;
  ctx: BlockContext;
}): TopologyBlock {
  const { group, x, y, width, height, ctx } = args;
  const name = group.node ?? UNSCHEDULED;
  const ok = group.node === null || !ctx.unhealthy.has(group.node);
  return {
    node: group.node,
    label: ctx.labels.get(name) ?? name,
    ok,
    x,
    y,
    width,
    height,
    first: 0,
    count: 0,
  };
}

function placeCells(args: {
  group: Group;
  block: TopologyBlock;
  columns: number;
  pitch: number;
  cells: TopologyCell[];
}) {
  const { group, block, columns, pitch, cells } = args;
  let rowY = block.y + PAD + LABEL_HEIGHT;
  for (const pod of group.pods) {
    pod.forEach((placed, i) => {
      const x = block.x + PAD + (i % columns) * pitch;
      const y = rowY + Math.floor(i / columns) * pitch;
      cells.push({ index: placed.index, rank: placed.rank, x, y });
    });
    rowY += Math.ceil(pod.length / columns) * pitch + POD_GAP;
  }
  block.count = cells.length - block.first;
}

/**
 * Lays out a job's ranks for a canvas `width` CSS pixels wide, using the largest cell size whose layout
 * fits `maxHeight` (or the smallest size if none does).
 */
export function topologyLayout(topology: TopologyView, width: number, maxHeight = 560): TopologyLayout {
  const groups = groupRanks(topology);
  const unhealthy = new Set(topology.nodes.filter((n) => !(n.ready && n.healthy)).map((n) => n.name));
  const named = nodeLabels(groups.flatMap((group) => (group.node === null ? [] : [group.node])));
  const labels = new Map(named.labels).set(UNSCHEDULED, UNSCHEDULED);
  const labelChars = Math.max(
    named.chars,
    groups.some((group) => group.node === null) ? UNSCHEDULED.length : 0,
  );
  let layout: TopologyLayout | null = null;
  for (const cellSize of CELL_SIZES) {
    const placed = placeGroups(groups, width, cellSize, { unhealthy, labels, labelChars });
    layout = { width, cellSize, ...placed };
    if (placed.height <= maxHeight) break;
  }
  return layout ?? { width, height: 0, cellSize: CELL_SIZES[0], gap: 2, blocks: [], cells: [] };
}

/**
 * Whether two topologies lay out alike: the same nodes (name, ready, healthy) and pods (name, node) in the
 * same order, and the same rank at each index on the same pod and node. What a live update usually changes
 * (a rank's health, step, line) leaves the layout as it was: a 16,384-rank page need not sort and place
 * every rank again each second.
 */
export function sameLayoutShape(a: TopologyView, b: TopologyView): boolean {
  if (a === b) return true;
  return (
    sameEach(
      a.nodes,
      b.nodes,
      (x, y) => x.name === y.name && x.ready === y.ready && x.healthy === y.healthy,
    ) &&
    sameEach(a.pods, b.pods, (x, y) => x.name === y.name && x.node === y.node) &&
    sameEach(
      a.ranks,
      b.ranks,
      (x, y) => x.rank === y.rank && x.localRank === y.localRank && x.pod === y.pod && x.node === y.node,
    )
  );
}

function sameEach<T>(a: readonly T[], b: readonly T[], same: (x: T, y: T) => boolean): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i += 1) if (!same(a[i] as T, b[i] as T)) return false;
  return true;
}

function inside(px: number, py: number, box: { x: number; y: number; width: number; height: number }) {
  return px >= box.x && px < box.x + box.width && py >= box.y && py < box.y + box.height;
}

/** The node block whose label row is under a point (for the full node name as a title), or null. */
export function labelAt(layout: TopologyLayout, x: number, y: number): TopologyBlock | null {
  return (
    layout.blocks.find((block) =>
      inside(x, y, { x: block.x, y: block.y, width: block.width, height: PAD + LABEL_HEIGHT }),
    ) ?? null
  );
}

/** The cell under a point (CSS pixels, relative to the canvas), or null over gaps, labels and margins. */
export function rankAt(layout: TopologyLayout, x: number, y: number): TopologyCell | null {
  const block = layout.blocks.find((candidate) => inside(x, y, candidate));
  if (!block) return null;
  const size = layout.cellSize;
  for (let i = block.first; i < block.first + block.count; i += 1) {
    const cell = layout.cells[i];
    if (cell && inside(x, y, { x: cell.x, y: cell.y, width: size, height: size })) return cell;
  }
  return null;
}
