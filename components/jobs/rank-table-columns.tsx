import type { ReactNode } from "react";
import type { RankView } from "@/server/domain/jobs/view-model";
import { formatAgo, formatLoss, formatNumber } from "./format";
import { HealthGlyph } from "./health-glyph";
import { healthTextColor } from "./health-style";
import styles from "./jobs.module.css";
import { ageFrom, formatRuleStates, healthText, type SortKey } from "./rank-table-model";
import type { ColumnLayout } from "./rank-table-model-columns";

/** What a cell may need beyond its row: the clock for ages, the selection callback for the rank button. */
export type CellContext = { now: number; onSelectRank?: (rank: number) => void };

/**
 * Column config (Headlamp style): header, sort key, fixed width (rows never reflow), whether it is pinned
 * (stays in view while the table scrolls sideways; rank-table-model-columns.ts) and how to render.
 */
export type RankColumn = ColumnLayout & {
  sortKey?: SortKey;
  numeric?: boolean;
  cell: (rank: RankView, ctx: CellContext) => ReactNode;
  /** Full text for the cell's title when the cell may be truncated. */
  title?: (rank: RankView, ctx: CellContext) => string | undefined;
};

const MAX_LINE = 2000;

function RankCell({ rank, ctx }: { rank: RankView; ctx: CellContext }) {
  const { onSelectRank } = ctx;
  if (!onSelectRank) return rank.rank;
  return (
    <button
      type="button"
      className={styles.linkButton}
      onClick={(event) => {
        event.stopPropagation();
        onSelectRank(rank.rank);
      }}
      aria-label={`Select rank ${rank.rank}`}
    >
      {rank.rank}
    </button>
  );
}

/** Age's title: both instants it may count from, so "since what" is never a guess. */
function ageTitle(rank: RankView, now: number): string {
  const progress = rank.lastProgressAt == null ? "none yet" : formatAgo(rank.lastProgressAt, now);
  return `Last progress line: ${progress}; last line: ${formatAgo(rank.lastLineAt, now)}`;
}

/**
 * Column order: what tells whether a rank is moving first (health, its progress age, step, loss, throughput,
 * restarts), then where it runs, then rules and the last line, which are long. Widths fit each header and
 * "No progress for 59 s" (bold 13 px). Rank and Health are pinned: however narrow the window, a row scrolled
 * sideways keeps its rank and health in view; the column chooser hides the columns one does not need.
 * Longer cells are cut with an ellipsis and a title.
 */
export const RANK_COLUMNS: readonly RankColumn[] = [
  {
    id: "rank",
    header: "Rank",
    sortKey: "rank",
    numeric: true,
    pinned: true,
    width: 66,
    cell: (r, ctx) => <RankCell rank={r} ctx={ctx} />,
  },
  {
    id: "health",
    header: "Health",
    sortKey: "health",
    pinned: true,
    width: 184,
    cell: (r, ctx) => (
      <span className={styles.healthText} style={{ color: healthTextColor(r.health) }}>
        <HealthGlyph health={r.health} /> {healthText(r, ctx.now)}
      </span>
    ),
    title: (r, ctx) => `${healthText(r, ctx.now)} (process ${r.state})`,
  },
  {
    id: "age",
    header: "Age",
    sortKey: "age",
    numeric: true,
    width: 88,
    cell: (r, ctx) => formatAgo(ageFrom(r), ctx.now),
    title: (r, ctx) => ageTitle(r, ctx.now),
  },
  {
    id: "step",
    header: "Step",
    sortKey: "step",
    numeric: true,
    width: 72,
    cell: (r) => formatNumber(r.step, 0),
  },
  { id: "loss", header: "Loss", sortKey: "loss", numeric: true, width: 68, cell: (r) => formatLoss(r.loss) },
  {
    id: "throughput",
    header: "Throughput",
    sortKey: "throughput",
    numeric: true,
    width: 116,
    cell: (r) => formatNumber(r.throughput, 1, true),
  },
  {
    id: "restarts",
    header: "Restarts",
    sortKey: "restarts",
    numeric: true,
    width: 92,
    cell: (r) => r.restarts,
  },
  {
    id: "node",
    header: "Node",
    sortKey: "node",
    width: 100,
    cell: (r) => r.node ?? "—",
    title: (r) => r.node ?? undefined,
  },
  { id: "pod", header: "Pod", sortKey: "pod", width: 124, cell: (r) => r.pod, title: (r) => r.pod },
  {
    id: "rules",
    header: "Rules",
    width: 80,
    cell: (r) => formatRuleStates(r.ruleStates) || "—",
    title: (r) => formatRuleStates(r.ruleStates) || undefined,
  },
  {
    id: "straggler",
    header: "Straggler",
    sortKey: "straggler",
    width: 100,
    cell: (r) => (r.straggler ? "Yes" : "—"),
  },
  {
    id: "line",
    header: "Last line",
    width: 260,
    cell: (r) => <code>{r.lastLine === null ? "—" : r.lastLine.slice(0, 200)}</code>,
    title: (r) => r.lastLine?.slice(0, MAX_LINE),
  },
];
