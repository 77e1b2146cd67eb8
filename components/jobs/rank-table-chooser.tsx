"use client";

import { useCallback, useEffect, useState } from "react";
import styles from "./jobs.module.css";
import type { RankColumn } from "./rank-table-columns";
import { HIDDEN_COLUMNS_KEY, parseHiddenColumns, toggleHidden } from "./rank-table-model-columns";

/**
 * The hidden columns, remembered in this browser's localStorage (read after mount: the server renders
 * every column). Where storage is refused (a private window's quota, a policy), the choice lasts for the
 * page and the reason goes to the console.
 */
export function useHiddenColumns(columns: readonly RankColumn[]) {
  const [hidden, setHidden] = useState<string[]>([]);
  useEffect(() => {
    setHidden(parseHiddenColumns(window.localStorage.getItem(HIDDEN_COLUMNS_KEY), columns));
  }, [columns]);
  const toggle = useCallback(
    (id: string) => {
      const next = toggleHidden(hidden, id, columns);
      setHidden(next);
      try {
        window.localStorage.setItem(HIDDEN_COLUMNS_KEY, JSON.stringify(next));
      } catch (error) {
        console.warn("rank table: the column choice is not remembered", error);
      }
    },
    [hidden, columns],
  );
  return { hidden, toggle };
}

/** The column chooser: a checkbox per column; Rank and Health are pinned and always shown. */
export function RankColumnChooser(props: {
  columns: readonly RankColumn[];
  hidden: readonly string[];
  onToggle: (id: string) => void;
}) {
  return (
    <details className={styles.chooser}>
      <summary className="button button-secondary">Columns</summary>
      <fieldset className={styles.chooserPanel}>
        <legend className={styles.srOnly}>Columns shown in the rank table</legend>
        {props.columns.map((column) => (
          <label key={column.id}>
            <input
              type="checkbox"
              checked={column.pinned === true || !props.hidden.includes(column.id)}
              disabled={column.pinned}
              onChange={() => props.onToggle(column.id)}
            />
            {column.header}
            {column.pinned ? <span className="muted"> (always shown)</span> : null}
          </label>
        ))}
      </fieldset>
    </details>
  );
}
