import type { RankHealth } from "@/server/domain/jobs/view-model";
import { HEALTH_STYLE } from "./health-style";

const BG = "var(--bg)";

/** The cell mark of each health as SVG (the same shapes topology-draw.ts paints), 12 × 12 user units. */
function Mark({ mark }: { mark: (typeof HEALTH_STYLE)[RankHealth]["mark"] }) {
  switch (mark) {
    case "dot":
      return <circle cx={6} cy={6} r={2.6} fill={BG} />;
    case "ring":
      return <circle cx={6} cy={6} r={3.4} fill="none" stroke={BG} strokeWidth={2} />;
    case "triangle":
      return <path d="M2.3 3.4 H9.7 L6 9.7 Z" fill={BG} />;
    case "bar":
      return <rect x={1.8} y={4.4} width={8.4} height={3.2} fill={BG} />;
    case "cross":
      return <path d="M2.6 2.6 L9.4 9.4 M9.4 2.6 L2.6 9.4" stroke={BG} strokeWidth={2} />;
    case "slash":
      return <path d="M2.6 9.4 L9.4 2.6" stroke={BG} strokeWidth={2} />;
    case "pause":
      return <path d="M3.4 2.6 H5.2 V9.4 H3.4 Z M6.8 2.6 H8.6 V9.4 H6.8 Z" fill={BG} />;
    case "check":
      return <path d="M2.4 6.4 L5 9 L9.6 3.2" fill="none" stroke={BG} strokeWidth={2} />;
    case "none":
    case "hollow":
      return null;
    default:
      return mark satisfies never;
  }
}

/**
 * A small swatch showing a health's colour and mark. Decorative (aria-hidden): every use puts the health's
 * name in text next to it, so health never depends on colour or shape alone.
 */
export function HealthGlyph({ health, size = 12 }: { health: RankHealth; size?: number }) {
  const { color, mark } = HEALTH_STYLE[health];
  const hollow = mark === "hollow";
  return (
    <svg width={size} height={size} viewBox="0 0 12 12" aria-hidden="true" focusable="false">
      <rect
        x={hollow ? 1 : 0}
        y={hollow ? 1 : 0}
        width={hollow ? 10 : 12}
        height={hollow ? 10 : 12}
        fill={hollow ? "none" : color}
        stroke={hollow ? color : "none"}
        strokeWidth={2}
      />
      <Mark mark={mark} />
    </svg>
  );
}
