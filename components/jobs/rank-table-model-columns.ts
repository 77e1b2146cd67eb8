/**
 * Which of the rank table's columns show, and where the pinned ones stick (rank-table.tsx), kept pure for
 * unit tests. Rank and Health are pinned: they lead the table and stay in view while it scrolls sideways,
 * so a row's other cells are always read against its rank and health, and they cannot be hidden. The
 * other columns can be hidden with the column chooser; the choice is remembered in localStorage as the
 * hidden columns' ids, so a column added later shows until someone hides it.
 */

export const HIDDEN_COLUMNS_KEY = "rebound.rank-table.hidden-columns";

export type ColumnLayout = { id: string; header: string; width: number; pinned?: boolean };

/** The hidden columns stored (a JSON array of ids); anything unreadable, unknown or pinned is dropped. */
export function parseHiddenColumns(raw: string | null, columns: readonly ColumnLayout[]): string[] {
  if (raw === null) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return [];
  }
  if (!Array.isArray(parsed)) return [];
  const hideable = new Set(columns.filter((column) => !column.pinned).map((column) => column.id));
  return [...new Set(parsed.filter((id): id is string => typeof id === "string" && hideable.has(id)))];
}

/** `hidden` with column `id` shown again, or hidden; a pinned column is never hidden. */
export function toggleHidden(
  hidden: readonly string[],
  id: string,
  columns: readonly ColumnLayout[],
): string[] {
  if (hidden.includes(id)) return hidden.filter((other) => other !== id);
  if (!columns.some((column) => column.id === id && !column.pinned)) return [...hidden];
  return [...hidden, id];
}

export function visibleColumns<C extends ColumnLayout>(
  columns: readonly C[],
  hidden: readonly string[],
): C[] {
  return columns.filter((column) => column.pinned || !hidden.includes(column.id));
}

/**
 * Each pinned column's `left` (CSS px) for position: sticky: the widths of the pinned columns before it.
 * Pinned columns must lead the table (a pinned column after an unpinned one would stick over it).
 */
export function pinnedOffsets(columns: readonly ColumnLayout[]): Map<string, number> {
  const offsets = new Map<string, number>();
  let left = 0;
  for (const column of columns) {
    if (!column.pinned) break;
    offsets.set(column.id, left);
    left += column.width;
  }
  const late = columns.slice(offsets.size).find((column) => column.pinned);
  if (late) throw new Error(`rank table: pinned column ${late.id} must come before every unpinned column`);
  return offsets;
}

export const tableWidth = (columns: readonly ColumnLayout[]) =>
  columns.reduce((sum, column) => sum + column.width, 0);
