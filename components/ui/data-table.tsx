import type { ReactNode } from "react";

/** A column-driven table (Headlamp style): each column says how to render a cell from a row. */
export type Column<Row> = {
  id: string;
  header: string;
  cell: (row: Row) => ReactNode;
  numeric?: boolean;
};

export function DataTable<Row>(props: {
  label: string;
  columns: ReadonlyArray<Column<Row>>;
  rows: readonly Row[];
  rowKey: (row: Row) => string;
}) {
  const { label, columns, rows, rowKey } = props;
  return (
    <table className="data-table" aria-label={label}>
      <thead>
        <tr>
          {columns.map((column) => (
            <th key={column.id} scope="col" className={column.numeric ? "num" : undefined}>
              {column.header}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={rowKey(row)}>
            {columns.map((column) => (
              <td key={column.id} className={column.numeric ? "num" : undefined}>
                {column.cell(row)}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
