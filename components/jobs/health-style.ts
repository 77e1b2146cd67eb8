import { RANK_HEALTH, type RankHealth } from "@/server/domain/jobs/view-model";

/**
 * How each rank health looks, shared by the canvas topology, the table, the tooltip and the legend.
 *
 * Colours: every one has a contrast ratio of at least 4.5:1 (WCAG AA for text, above the 3:1 needed for
 * graphics) against both --bg (#0f1419) and --panel (#161d25) of app/globals.css, so the same colour serves
 * as a cell fill and as text; health-style.test.ts checks it. Marks: health is never shown by colour alone;
 * each health has a distinct shape (hollow, dot, triangle, bar, cross, ring, slash, pause, check) drawn in the background colour
 * on the cell, and the legend and tooltip always add the word.
 */

export type HealthMark =
  | "none"
  | "hollow"
  | "dot"
  | "triangle"
  | "bar"
  | "cross"
  | "ring"
  | "slash"
  | "pause"
  | "check";

export type HealthStyle = { label: string; color: string; mark: HealthMark; description: string };

export const HEALTH_STYLE: Readonly<Record<RankHealth, HealthStyle>> = {
  healthy: { label: "Healthy", color: "#3fb950", mark: "none", description: "Running and making progress" },
  waiting: {
    label: "Waiting",
    color: "#9aa7b4",
    mark: "hollow",
    description: "Starting, no step or rule yet",
  },
  slow: { label: "Slow", color: "#d29922", mark: "dot", description: "A log rule reports SLOW" },
  straggler: {
    label: "Straggler",
    color: "#bc8cff",
    mark: "triangle",
    description: "Well behind its peers' throughput or step",
  },
  hanging: { label: "Hanging", color: "#ff9b50", mark: "bar", description: "A log rule reports HANGING" },
  faulted: {
    label: "Faulted",
    color: "#f85149",
    mark: "cross",
    description: "Crashed or a rule reports FAULTED",
  },
  suspect: {
    label: "Suspect",
    color: "#f778ba",
    mark: "slash",
    description: "Went silent after printing; not a fault (yet)",
  },
  stalled: {
    label: "No progress",
    color: "#f0e442",
    mark: "pause",
    description: "No progress line for 3 times its usual interval (at least 5 s); not a fault (yet)",
  },
  restarting: {
    label: "Restarting",
    color: "#39c5cf",
    mark: "ring",
    description: "Being restarted or replaced",
  },
  finished: {
    label: "Finished",
    color: "#58a6ff",
    mark: "check",
    description: "The job has ended; the rank no longer runs",
  },
};

/**
 * A health's colour as text on the page: the theme's variable (app/globals.css keeps a dark and a light value,
 * each AA on its background). The canvas, which cannot read variables per draw, uses `color` (the dark value).
 */
export const healthTextColor = (health: RankHealth): string => `var(--health-${health})`;

/** Most severe first: the order of rankHealth's precedence (server/domain/console/rank-health.ts). */
export const HEALTH_ORDER: readonly RankHealth[] = [
  "faulted",
  "restarting",
  "hanging",
  "slow",
  "suspect",
  "stalled",
  "straggler",
  "waiting",
  "healthy",
  "finished",
];

/** Severity rank of a health (0 = most severe), for sorting. */
export const HEALTH_SEVERITY: Readonly<Record<RankHealth, number>> = Object.fromEntries(
  HEALTH_ORDER.map((health, index) => [health, index]),
) as Record<RankHealth, number>;

/** Mirrors of app/globals.css, used when a CSS variable cannot be read (canvas before mount, tests). */
export const FALLBACK_COLORS = {
  bg: "#0f1419",
  panel: "#161d25",
  border: "#263240",
  text: "#e6edf3",
  muted: "#9aa7b4",
  bad: "#f85149",
};

/** Counts per health, every health present (0 when none). O(n). */
export function countHealth(ranks: ReadonlyArray<{ health: RankHealth }>): Record<RankHealth, number> {
  const counts = Object.fromEntries(RANK_HEALTH.map((health) => [health, 0])) as Record<RankHealth, number>;
  for (const rank of ranks) counts[rank.health] += 1;
  return counts;
}

/** "2,048 ranks: 2,040 healthy, 8 faulted" — the screen-reader summary of a topology. */
export function healthSummary(counts: Readonly<Record<RankHealth, number>>, total: number): string {
  const parts = HEALTH_ORDER.filter((health) => counts[health] > 0).map(
    (health) => `${counts[health].toLocaleString("en-US")} ${HEALTH_STYLE[health].label.toLowerCase()}`,
  );
  const noun = total === 1 ? "rank" : "ranks";
  return `${total.toLocaleString("en-US")} ${noun}${parts.length > 0 ? `: ${parts.join(", ")}` : ""}`;
}
