"use client";

import { type RefObject, useEffect, useRef } from "react";
import type { RankView } from "@/server/domain/jobs/view-model";
import { FALLBACK_COLORS } from "./health-style";
import { drawTopology, type TopologyPalette } from "./topology-draw";
import type { TopologyCell, TopologyLayout } from "./topology-layout";
import { useDevicePixelRatio } from "./use-device-pixel-ratio";

function readPalette(element: Element): TopologyPalette {
  const style = getComputedStyle(element);
  const read = (name: string, fallback: string) => style.getPropertyValue(name).trim() || fallback;
  return {
    bg: read("--bg", FALLBACK_COLORS.bg),
    border: read("--panel-border", FALLBACK_COLORS.border),
    bad: read("--bad", FALLBACK_COLORS.bad),
    muted: read("--muted", FALLBACK_COLORS.muted),
    text: read("--text", FALLBACK_COLORS.text),
  };
}

/**
 * Keeps a canvas painted with a topology layout: sizes its backing store to CSS size × devicePixelRatio
 * (sharp on HiDPI, re-done when the ratio changes), reads the theme's CSS variables once, and repaints
 * after every change of layout, rank data or highlight — an O(ranks) paint, no React per cell.
 */
export function useTopologyCanvas(args: {
  canvasRef: RefObject<HTMLCanvasElement | null>;
  layout: TopologyLayout | null;
  ranks: readonly RankView[];
  highlight: ReadonlyArray<TopologyCell | undefined>;
}): void {
  const { canvasRef, layout, ranks } = args;
  const [selected, hovered] = args.highlight;
  const dpr = useDevicePixelRatio();
  const paletteRef = useRef<TopologyPalette | null>(null);

  useEffect(() => {
    const canvas = canvasRef.current;
    const ctx = canvas?.getContext("2d");
    if (!canvas || !ctx || !layout) return;
    const pixelWidth = Math.round(layout.width * dpr);
    const pixelHeight = Math.round(layout.height * dpr);
    if (canvas.width !== pixelWidth) canvas.width = pixelWidth;
    if (canvas.height !== pixelHeight) canvas.height = pixelHeight;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    paletteRef.current ??= readPalette(canvas);
    drawTopology(ctx, {
      layout,
      health: (index) => ranks[index]?.health ?? "waiting",
      palette: paletteRef.current,
      highlight: [selected, hovered],
    });
  }, [canvasRef, layout, ranks, dpr, selected, hovered]);
}
