import { memo } from "react";
import type { RankView } from "@/server/domain/jobs/view-model";
import styles from "./jobs.module.css";
import type { CellContext, RankColumn } from "./rank-table-columns";
import { cellLayout } from "./rank-table-header";
import { pinnedOffsets } from "./rank-table-model-columns";

type RankTableRowProps = {
  rank: RankView;
  rowIndex: number;
  selected: boolean;
  ctx: CellContext & { columns: readonly RankColumn[] };
};

/**
 * One rank's row. Memoised on its props (the rank object, the clock and the callback), so scrolling
 * re-renders only the rows that enter the window.
 */
export const RankTableRow = memo(function RankTableRow({ rank, rowIndex, selected, ctx }: RankTableRowProps) {
  const offsets = pinnedOffsets(ctx.columns);
  return (
    <tr
      aria-rowindex={rowIndex}
      aria-selected={selected || undefined}
      className={selected ? styles.selectedRow : undefined}
      onClick={ctx.onSelectRank ? () => ctx.onSelectRank?.(rank.rank) : undefined}
    >
      {ctx.columns.map((column) => (
        <td key={column.id} {...cellLayout(column, offsets.get(column.id))} title={column.title?.(rank, ctx)}>
          {column.cell(rank, ctx)}
        </td>
      ))}
    </tr>
  );
}, sameRow);

function sameRow(a: RankTableRowProps, b: RankTableRowProps): boolean {
  return (
    a.rank === b.rank &&
    a.rowIndex === b.rowIndex &&
    a.selected === b.selected &&
    a.ctx.now === b.ctx.now &&
    a.ctx.columns === b.ctx.columns &&
    a.ctx.onSelectRank === b.ctx.onSelectRank
  );
}
