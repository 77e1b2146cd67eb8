import styles from "./jobs.module.css";
import type { RankColumn } from "./rank-table-columns";
import { nextSort, type RankSort } from "./rank-table-model";
import { pinnedOffsets } from "./rank-table-model-columns";

type SortProps = { sort: RankSort; onSort: (sort: RankSort) => void };

function ariaSort(column: RankColumn, sort: RankSort) {
  if (column.sortKey === undefined) return undefined;
  return sort.key === column.sortKey ? sort.direction : "none";
}

/** A cell's class and style: numeric alignment, and a pinned column's sticky `left`. */
export function cellLayout(column: RankColumn, left: number | undefined) {
  const classes = [column.numeric ? styles.num : "", left === undefined ? "" : styles.pinned];
  return {
    className: classes.filter(Boolean).join(" ") || undefined,
    style: left === undefined ? undefined : { left },
  };
}

function HeaderCell({ column, left, sort, onSort }: SortProps & { column: RankColumn; left?: number }) {
  const { sortKey } = column;
  const direction = ariaSort(column, sort);
  return (
    <th scope="col" {...cellLayout(column, left)} aria-sort={direction}>
      {sortKey === undefined ? (
        column.header
      ) : (
        <button type="button" className={styles.sortButton} onClick={() => onSort(nextSort(sort, sortKey))}>
          {column.header}
          <span aria-hidden="true" className={styles.sortIcon}>
            {direction === "ascending" ? "▲" : direction === "descending" ? "▼" : ""}
          </span>
        </button>
      )}
    </th>
  );
}

/** Column widths and the sortable header row; each sortable header is a button and carries aria-sort. */
export function RankTableHeader({ columns, sort, onSort }: SortProps & { columns: readonly RankColumn[] }) {
  const offsets = pinnedOffsets(columns);
  return (
    <>
      <colgroup>
        {columns.map((column) => (
          <col key={column.id} style={{ width: column.width }} />
        ))}
      </colgroup>
      <thead>
        <tr aria-rowindex={1}>
          {columns.map((column) => (
            <HeaderCell
              key={column.id}
              column={column}
              left={offsets.get(column.id)}
              sort={sort}
              onSort={onSort}
            />
          ))}
        </tr>
      </thead>
    </>
  );
}
