import { RANK_HEALTH, type RankHealth } from "@/server/domain/jobs/view-model";
import { HEALTH_STYLE, type HealthMark, type HealthStyle } from "./health-style";
import type { TopologyCell, TopologyLayout } from "./topology-layout";

/**
 * Paints a topology layout on a 2D canvas. O(blocks + ranks) per frame with one path per health (so at most
 * one fill and one mark path per health however many ranks), which keeps a 2,048-rank redraw well under a
 * millisecond or two; React never sees the cells.
 */

export type TopologyPalette = { bg: string; border: string; bad: string; muted: string; text: string };

export type DrawTopologyArgs = {
  layout: TopologyLayout;
  health: (index: number) => RankHealth;
  palette: TopologyPalette;
  /** The selected and hovered cells (outlined). */
  highlight: ReadonlyArray<TopologyCell | undefined>;
};

function drawBlocks(ctx: CanvasRenderingContext2D, { layout, palette }: DrawTopologyArgs) {
  ctx.lineWidth = 1;
  for (const ok of [true, false]) {
    ctx.strokeStyle = ok ? palette.border : palette.bad;
    ctx.beginPath();
    for (const block of layout.blocks) {
      if (block.ok === ok) ctx.rect(block.x + 0.5, block.y + 0.5, block.width - 1, block.height - 1);
    }
    ctx.stroke();
  }
  ctx.fillStyle = palette.muted;
  ctx.font = "10px ui-monospace, SFMono-Regular, Menlo, monospace";
  ctx.textBaseline = "top";
  for (const block of layout.blocks) ctx.fillText(block.label, block.x + 4, block.y + 4);
}

/** Adds one cell's mark to the current path; the mark is filled or stroked by the caller per mark kind. */
function traceMark(ctx: CanvasRenderingContext2D, mark: HealthMark, cell: TopologyCell, size: number) {
  const c = size / 2;
  const r = size * 0.22;
  const x = cell.x + c;
  const y = cell.y + c;
  switch (mark) {
    case "dot":
      ctx.moveTo(x + r, y);
      ctx.arc(x, y, r, 0, Math.PI * 2);
      return;
    case "ring":
      ctx.moveTo(x + r * 1.3, y);
      ctx.arc(x, y, r * 1.3, 0, Math.PI * 2);
      return;
    case "triangle":
      ctx.moveTo(x - r * 1.4, y - r);
      ctx.lineTo(x + r * 1.4, y - r);
      ctx.lineTo(x, y + r * 1.4);
      ctx.closePath();
      return;
    case "bar":
      ctx.rect(x - r * 1.6, y - r * 0.6, r * 3.2, r * 1.2);
      return;
    case "cross":
      ctx.moveTo(x - r * 1.3, y - r * 1.3);
      ctx.lineTo(x + r * 1.3, y + r * 1.3);
      ctx.moveTo(x + r * 1.3, y - r * 1.3);
      ctx.lineTo(x - r * 1.3, y + r * 1.3);
      return;
    case "slash":
      ctx.moveTo(x - r * 1.3, y + r * 1.3);
      ctx.lineTo(x + r * 1.3, y - r * 1.3);
      return;
    case "pause":
      ctx.rect(x - r * 1.2, y - r * 1.4, r * 0.8, r * 2.8);
      ctx.rect(x + r * 0.4, y - r * 1.4, r * 0.8, r * 2.8);
      return;
    case "check":
      ctx.moveTo(x - r * 1.4, y + r * 0.1);
      ctx.lineTo(x - r * 0.3, y + r * 1.2);
      ctx.lineTo(x + r * 1.4, y - r * 1.2);
      return;
    case "none":
    case "hollow":
      return;
    default:
      mark satisfies never;
  }
}

function fillCells(ctx: CanvasRenderingContext2D, style: HealthStyle, cells: TopologyCell[], size: number) {
  const hollow = style.mark === "hollow";
  ctx.beginPath();
  for (const cell of cells) {
    if (hollow) ctx.rect(cell.x + 1, cell.y + 1, size - 2, size - 2);
    else ctx.rect(cell.x, cell.y, size, size);
  }
  if (hollow) {
    ctx.strokeStyle = style.color;
    ctx.lineWidth = 2;
    ctx.stroke();
  } else {
    ctx.fillStyle = style.color;
    ctx.fill();
  }
}

/** Marks are drawn in the background colour on the cell; below 8 px they would be noise, so skipped. */
function markCells(
  ctx: CanvasRenderingContext2D,
  args: { mark: HealthMark; cells: TopologyCell[]; size: number; color: string },
) {
  const { mark, cells, size, color } = args;
  if (mark === "none" || mark === "hollow" || size < 8) return;
  ctx.beginPath();
  for (const cell of cells) traceMark(ctx, mark, cell, size);
  ctx.strokeStyle = color;
  ctx.fillStyle = color;
  ctx.lineWidth = size >= 12 ? 2 : 1.5;
  if (mark === "cross" || mark === "ring" || mark === "slash" || mark === "check") ctx.stroke();
  else ctx.fill();
}

function drawHighlights(ctx: CanvasRenderingContext2D, { layout, palette, highlight }: DrawTopologyArgs) {
  const size = layout.cellSize;
  ctx.strokeStyle = palette.text;
  ctx.lineWidth = 2;
  for (const cell of highlight) {
    if (cell) ctx.strokeRect(cell.x - 1.5, cell.y - 1.5, size + 3, size + 3);
  }
}

/** Draws blocks, labels, cells by health (with marks) and highlights, on a context already scaled to CSS px. */
export function drawTopology(ctx: CanvasRenderingContext2D, args: DrawTopologyArgs): void {
  ctx.clearRect(0, 0, args.layout.width, args.layout.height);
  drawBlocks(ctx, args);
  const byHealth = new Map<RankHealth, TopologyCell[]>(RANK_HEALTH.map((health) => [health, []]));
  for (const cell of args.layout.cells) byHealth.get(args.health(cell.index))?.push(cell);
  const size = args.layout.cellSize;
  for (const [health, cells] of byHealth) {
    if (cells.length === 0) continue;
    const style = HEALTH_STYLE[health];
    fillCells(ctx, style, cells, size);
    markCells(ctx, { mark: style.mark, cells, size, color: args.palette.bg });
  }
  drawHighlights(ctx, args);
}
