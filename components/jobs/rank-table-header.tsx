import styles from "./jobs.module.css";
import { RANK_COLUMNS, type RankColumn } from "./rank-table-columns";
import { nextSort, type RankSort } from "./rank-table-model";

type SortProps = { sort: RankSort; onSort: (sort: RankSort) => void };

function ariaSort(column: RankColumn, sort: RankSort) {
  if (column.sortKey === undefined) return undefined;
  return sort.key === column.sortKey ? sort.direction : "none";
}

function HeaderCell({ column, sort, onSort }: SortProps & { column: RankColumn }) {
  const { sortKey } = column;
  const direction = ariaSort(column, sort);
  return (
    <th scope="col" className={column.numeric ? styles.num : undefined} aria-sort={direction}>
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
export function RankTableHeader({ sort, onSort }: SortProps) {
  return (
    <>
      <colgroup>
        {RANK_COLUMNS.map((column) => (
          <col key={column.id} style={{ width: column.width }} />
        ))}
      </colgroup>
      <thead>
        <tr aria-rowindex={1}>
          {RANK_COLUMNS.map((column) => (
            <HeaderCell key={column.id} column={column} sort={sort} onSort={onSort} />
          ))}
        </tr>
      </thead>
    </>
  );
}
