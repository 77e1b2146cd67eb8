"use client";

import { useEffect, useMemo, useRef, useState } from "react";
import { EmptyState } from "@/components/ui/query-state";
import type { RankView } from "@/server/domain/jobs/view-model";
import styles from "./jobs.module.css";
import { RankColumnChooser, useHiddenColumns } from "./rank-table-chooser";
import { RANK_COLUMNS } from "./rank-table-columns";
import { RankTableHeader } from "./rank-table-header";
import { DEFAULT_SORT, filterRanks, type RankSort, sortRanks } from "./rank-table-model";
import { tableWidth, visibleColumns } from "./rank-table-model-columns";
import { RankTableRow } from "./rank-table-row";
import { scrollToRow, virtualWindow } from "./virtual-window";

export type RankTableProps = {
  ranks: readonly RankView[];
  /** Epoch ms "now" for line ages; pass the page's 1 Hz clock (useNow) so ages tick with the data. */
  now: number;
  selectedRank?: number | null;
  onSelectRank?: (rank: number) => void;
  /** id for the table's caption, for the topology canvas's aria-describedby. */
  captionId?: string;
  /** Height of the scrolling body in CSS px (default 420). */
  height?: number;
};

export const ROW_HEIGHT = 30;

/** Stands in for the rows outside the window, so the scrollbar is true to the whole list. */
function Spacer({ height, columns }: { height: number; columns: number }) {
  if (height <= 0) return null;
  return (
    <tr className={styles.spacer}>
      <td colSpan={columns} style={{ height }} />
    </tr>
  );
}

/**
 * The per-rank health table: sortable (aria-sort, stable, ties by rank), filterable, and virtualised —
 * only the rows in view (plus a few) are rendered, in a fixed-height scroll box with constant row height,
 * so 2,048 ranks cost about 30 rows of React per update. It is also the topology canvas's accessible
 * alternative: a real <table> with aria-rowcount/aria-rowindex so assistive tech knows its true size.
 * Rank and Health stay in view while it scrolls sideways; the column chooser hides the others
 * (rank-table-model-columns.ts).
 */
export function RankTable({
  ranks,
  now,
  selectedRank,
  onSelectRank,
  captionId,
  height = 420,
}: RankTableProps) {
  const [sort, setSort] = useState<RankSort>(DEFAULT_SORT);
  const [query, setQuery] = useState("");
  const [scrollTop, setScrollTop] = useState(0);
  const scrollRef = useRef<HTMLDivElement>(null);
  const scrolledTo = useRef<number | null>(null);
  const { hidden, toggle } = useHiddenColumns(RANK_COLUMNS);
  const columns = useMemo(() => visibleColumns(RANK_COLUMNS, hidden), [hidden]);

  const rows = useMemo(() => sortRanks(filterRanks(ranks, query), sort), [ranks, query, sort]);
  const view = virtualWindow({
    scrollTop,
    viewportHeight: height,
    rowHeight: ROW_HEIGHT,
    count: rows.length,
  });

  // Bring a newly selected rank (e.g. clicked on the topology) into view, once per selection.
  useEffect(() => {
    const box = scrollRef.current;
    if (!box || selectedRank == null || scrolledTo.current === selectedRank) return;
    const index = rows.findIndex((row) => row.rank === selectedRank);
    if (index < 0) return;
    scrolledTo.current = selectedRank;
    // The sticky header covers the first row's height; scroll as if the viewport were that much shorter.
    box.scrollTop = scrollToRow({
      index,
      scrollTop: box.scrollTop,
      viewportHeight: height - ROW_HEIGHT,
      rowHeight: ROW_HEIGHT,
    });
  }, [selectedRank, rows, height]);

  if (ranks.length === 0) return <EmptyState>No ranks yet: the job's pods have not started.</EmptyState>;

  const ctx = { now, onSelectRank, columns };
  // As tall as its rows, up to `height`: a 2-rank job's table is not a 420 px box of empty space (16 px
  // for a sideways scrollbar, so a few rows never need a vertical one).
  const boxHeight = Math.min(height, Math.max(rows.length, 1) * ROW_HEIGHT + 16);
  return (
    <div className={styles.rankTable}>
      <div className={styles.tableToolbar}>
        <input
          type="search"
          className={styles.filter}
          placeholder="Filter by rank, node, pod or health"
          aria-label="Filter ranks by rank, node, pod or health"
          value={query}
          onChange={(event) => {
            setQuery(event.target.value);
            scrollRef.current?.scrollTo({ top: 0 });
          }}
        />
        <span className="muted" aria-live="polite">
          {rows.length === ranks.length
            ? `${ranks.length.toLocaleString("en-US")} ranks`
            : `${rows.length.toLocaleString("en-US")} of ${ranks.length.toLocaleString("en-US")} ranks`}
        </span>
        <RankColumnChooser columns={RANK_COLUMNS} hidden={hidden} onToggle={toggle} />
      </div>
      <div
        ref={scrollRef}
        className={styles.tableScroll}
        style={{ height: boxHeight + ROW_HEIGHT }}
        onScroll={(event) => setScrollTop(event.currentTarget.scrollTop)}
      >
        <table
          className={styles.table}
          style={{ width: tableWidth(columns) }}
          aria-rowcount={rows.length + 1}
        >
          <caption id={captionId} className={styles.srOnly}>
            Per-rank health, {ranks.length.toLocaleString("en-US")} ranks; the same data as the rank topology.
            Sort with the column headers; rows load as you scroll.
          </caption>
          <RankTableHeader columns={columns} sort={sort} onSort={setSort} />
          <tbody>
            <Spacer height={view.padTop} columns={columns.length} />
            {rows.slice(view.start, view.end).map((rank, i) => (
              <RankTableRow
                key={rank.rank}
                rank={rank}
                rowIndex={view.start + i + 2}
                selected={rank.rank === selectedRank}
                ctx={ctx}
              />
            ))}
            <Spacer height={view.padBottom} columns={columns.length} />
          </tbody>
        </table>
        {rows.length === 0 ? <EmptyState>No rank matches “{query.trim()}”.</EmptyState> : null}
      </div>
    </div>
  );
}
