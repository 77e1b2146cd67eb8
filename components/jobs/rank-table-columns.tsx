import type { ReactNode } from "react";
import type { RankView } from "@/server/domain/jobs/view-model";
import { formatAgo, formatLoss, formatNumber } from "./format";
import { HealthGlyph } from "./health-glyph";
import { HEALTH_STYLE } from "./health-style";
import styles from "./jobs.module.css";
import { formatRuleStates, type SortKey } from "./rank-table-model";

/** What a cell may need beyond its row: the clock for ages, the selection callback for the rank button. */
export type CellContext = { now: number; onSelectRank?: (rank: number) => void };

/** Column config (Headlamp style): header, sort key, fixed width (rows never reflow) and how to render. */
export type RankColumn = {
  id: string;
  header: string;
  sortKey?: SortKey;
  numeric?: boolean;
  width: number;
  cell: (rank: RankView, ctx: CellContext) => ReactNode;
  /** Full text for the cell's title when the cell may be truncated. */
  title?: (rank: RankView) => string | undefined;
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

export const RANK_COLUMNS: readonly RankColumn[] = [
  {
    id: "rank",
    header: "Rank",
    sortKey: "rank",
    numeric: true,
    width: 64,
    cell: (r, ctx) => <RankCell rank={r} ctx={ctx} />,
  },
  {
    id: "node",
    header: "Node",
    sortKey: "node",
    width: 130,
    cell: (r) => r.node ?? "—",
    title: (r) => r.node ?? undefined,
  },
  { id: "pod", header: "Pod", sortKey: "pod", width: 150, cell: (r) => r.pod, title: (r) => r.pod },
  {
    id: "health",
    header: "Health",
    sortKey: "health",
    width: 120,
    cell: (r) => (
      <span className={styles.healthText} style={{ color: HEALTH_STYLE[r.health].color }}>
        <HealthGlyph health={r.health} /> {HEALTH_STYLE[r.health].label}
      </span>
    ),
    title: (r) => `${HEALTH_STYLE[r.health].label} (process ${r.state})`,
  },
  {
    id: "step",
    header: "Step",
    sortKey: "step",
    numeric: true,
    width: 76,
    cell: (r) => formatNumber(r.step, 0),
  },
  { id: "loss", header: "Loss", sortKey: "loss", numeric: true, width: 80, cell: (r) => formatLoss(r.loss) },
  {
    id: "throughput",
    header: "Throughput",
    sortKey: "throughput",
    numeric: true,
    width: 100,
    cell: (r) => formatNumber(r.throughput, 1),
  },
  {
    id: "line",
    header: "Last line",
    width: 260,
    cell: (r) => <code>{r.lastLine === null ? "—" : r.lastLine.slice(0, 200)}</code>,
    title: (r) => r.lastLine?.slice(0, MAX_LINE),
  },
  {
    id: "age",
    header: "Age",
    sortKey: "lastLineAt",
    numeric: true,
    width: 90,
    cell: (r, ctx) => formatAgo(r.lastLineAt, ctx.now),
  },
  {
    id: "restarts",
    header: "Restarts",
    sortKey: "restarts",
    numeric: true,
    width: 84,
    cell: (r) => r.restarts,
  },
  {
    id: "rules",
    header: "Rules",
    width: 180,
    cell: (r) => formatRuleStates(r.ruleStates) || "—",
    title: (r) => formatRuleStates(r.ruleStates) || undefined,
  },
  {
    id: "straggler",
    header: "Straggler",
    sortKey: "straggler",
    width: 92,
    cell: (r) => (r.straggler ? "Yes" : "—"),
  },
];
