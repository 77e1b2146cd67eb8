"use client";

import { type MouseEvent, useMemo, useRef, useState } from "react";
import { EmptyState } from "@/components/ui/query-state";
import type { TopologyView } from "@/server/domain/jobs/view-model";
import { HealthLegend } from "./health-legend";
import { countHealth, healthSummary } from "./health-style";
import styles from "./jobs.module.css";
import { RankTooltip } from "./rank-tooltip";
import {
  labelAt,
  rankAt,
  sameLayoutShape,
  type TopologyCell,
  type TopologyLayout,
  topologyLayout,
} from "./topology-layout";
import { useElementWidth } from "./use-element-width";
import { useTopologyCanvas } from "./use-topology-canvas";

export type RankTopologyProps = {
  topology: TopologyView;
  /** Epoch ms "now" for the tooltip's ages: pass the page's 1 Hz clock (useNow). */
  now: number;
  onSelectRank?: (rank: number) => void;
  selectedRank?: number | null;
  /** id of an element describing the accessible alternative (the rank table's caption). */
  describedBy?: string;
  /** Height budget in CSS px; cells shrink to fit it (default 560). */
  maxHeight?: number;
};

const TOOLTIP_WIDTH = 300;
const TOOLTIP_OFFSET = 8;

/** Tooltip to the right of the cell, or to its left when it would overflow the canvas. */
function tooltipAnchor(cell: TopologyCell, layout: TopologyLayout) {
  const flip = cell.x + layout.cellSize + TOOLTIP_OFFSET + TOOLTIP_WIDTH > layout.width;
  const x = flip ? cell.x - TOOLTIP_OFFSET : cell.x + layout.cellSize + TOOLTIP_OFFSET;
  return { x, y: cell.y, flip };
}

function cellsByRank(layout: TopologyLayout | null): Map<number, TopologyCell> {
  return new Map(layout?.cells.map((cell) => [cell.rank, cell]));
}

function lookup(cells: ReadonlyMap<number, TopologyCell>, rank: number | null | undefined) {
  return rank === null || rank === undefined ? undefined : cells.get(rank);
}

function pointIn(event: MouseEvent<HTMLCanvasElement>) {
  const box = event.currentTarget.getBoundingClientRect();
  return { x: event.clientX - box.left, y: event.clientY - box.top };
}

function cellAt(layout: TopologyLayout | null, event: MouseEvent<HTMLCanvasElement>): TopologyCell | null {
  if (!layout) return null;
  const { x, y } = pointIn(event);
  return rankAt(layout, x, y);
}

/** The full name of the node whose (possibly shortened) label is under the pointer. */
function nodeNameAt(layout: TopologyLayout | null, event: MouseEvent<HTMLCanvasElement>): string | null {
  if (!layout) return null;
  const { x, y } = pointIn(event);
  const block = labelAt(layout, x, y);
  return block ? (block.node ?? "no node yet") : null;
}

/** The last topology of the same layout shape: the layout's input, kept while only rank states change. */
function useLayoutShape(topology: TopologyView): TopologyView {
  const [shape, setShape] = useState(topology);
  if (shape !== topology && !sameLayoutShape(shape, topology)) {
    setShape(topology);
    return topology;
  }
  return shape;
}

/**
 * The job's ranks as a node → pod → rank map on one <canvas>: a 2,048-rank job is one element, drawn in a
 * couple of milliseconds, and a 1 Hz update re-runs the O(n) paint, the O(n log n) layout only when the
 * topology's shape changed (sameLayoutShape), and never React per cell. Hover shows a tooltip (over a node's
 * label, its full name); click selects a rank. The canvas is role="img" with a per-health count summary; the
 * rank table is the accessible alternative (point `describedBy` at its caption).
 */
export function RankTopology(props: RankTopologyProps) {
  const { topology, onSelectRank, selectedRank, describedBy, maxHeight, now } = props;
  const wrapperRef = useRef<HTMLDivElement>(null);
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const width = useElementWidth(wrapperRef);
  const [hovered, setHovered] = useState<number | null>(null);
  const [hoveredNode, setHoveredNode] = useState<string | null>(null);

  const shape = useLayoutShape(topology);
  const layout = useMemo(
    () => (width > 0 ? topologyLayout(shape, width, maxHeight) : null),
    [shape, width, maxHeight],
  );
  const cellByRank = useMemo(() => cellsByRank(layout), [layout]);
  const counts = useMemo(() => countHealth(topology.ranks), [topology.ranks]);
  const hoveredCell = lookup(cellByRank, hovered);
  const selectedCell = lookup(cellByRank, selectedRank);
  useTopologyCanvas({ canvasRef, layout, ranks: topology.ranks, highlight: [selectedCell, hoveredCell] });

  const empty = topology.ranks.length === 0;
  const hoveredRank = hoveredCell && topology.ranks[hoveredCell.index];
  const anchor = hoveredCell && layout ? tooltipAnchor(hoveredCell, layout) : null;
  return (
    <div className={styles.topology}>
      {empty ? null : <HealthLegend counts={counts} />}
      {/* Always mounted: its width is measured once, possibly before the first ranks arrive. */}
      <div ref={wrapperRef} className={styles.canvasWrap}>
        {empty ? <EmptyState>No ranks yet: the job's pods have not started.</EmptyState> : null}
        <canvas
          hidden={empty}
          ref={canvasRef}
          role="img"
          aria-label={`Rank topology, ${healthSummary(counts, topology.ranks.length)}`}
          aria-describedby={describedBy}
          className={hoveredCell ? styles.canvasPointer : undefined}
          style={layout ? { width: layout.width, height: layout.height } : { width: 0, height: 0 }}
          title={hoveredNode ?? undefined}
          onPointerMove={(event) => {
            setHovered(cellAt(layout, event)?.rank ?? null);
            setHoveredNode(nodeNameAt(layout, event));
          }}
          onPointerLeave={() => {
            setHovered(null);
            setHoveredNode(null);
          }}
          onClick={(event) => {
            const cell = cellAt(layout, event);
            if (cell) onSelectRank?.(cell.rank);
          }}
        />
        {hoveredRank && anchor ? <RankTooltip rank={hoveredRank} now={now} {...anchor} /> : null}
      </div>
    </div>
  );
}
