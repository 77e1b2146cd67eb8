/**
 * Live lists (the jobs list, the cluster's nodes) as small diffs: rows by key, what changed, what went, and
 * the new order only when it is not what applying the rest gives. Pure, shared by the stream that sends
 * and the page that applies them. Rows are plain data (what crosses the wire), compared by value.
 */
export type ListDiff<R> = {
  /** Rows new or changed; a new row goes at the end unless `order` says otherwise. */
  upsert: R[];
  /** Keys of rows that went. */
  remove: string[];
  /** Every key in its new place, when the rows moved (null: they kept their order). */
  order: string[] | null;
};

export type KeyedList<R> = {
  /** What changed from `previous` to `next`; null when nothing did. */
  diff(previous: readonly R[], next: readonly R[]): ListDiff<R> | null;
  apply(rows: readonly R[], diff: ListDiff<R>): R[];
};

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

const sameKeys = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((key, index) => key === b[index]);

/** Diff and apply for rows named by `keyOf` (keys unique within a list). */
export function keyedList<R>(keyOf: (row: R) => string): KeyedList<R> {
  const apply = (rows: readonly R[], diff: ListDiff<R>): R[] => {
    const removed = new Set(diff.remove);
    const upserts = new Map(diff.upsert.map((row) => [keyOf(row), row]));
    const kept = rows
      .filter((row) => !removed.has(keyOf(row)))
      .map((row) => {
        const key = keyOf(row);
        const changed = upserts.get(key);
        upserts.delete(key);
        return changed ?? row;
      });
    const merged = [...kept, ...upserts.values()];
    if (!diff.order) return merged;
    const byKey = new Map(merged.map((row) => [keyOf(row), row]));
    return diff.order.flatMap((key) => {
      const row = byKey.get(key);
      return row === undefined ? [] : [row];
    });
  };

  const diff = (previous: readonly R[], next: readonly R[]): ListDiff<R> | null => {
    const before = new Map(previous.map((row) => [keyOf(row), row]));
    const nextKeys = new Set(next.map(keyOf));
    const upsert = next.filter((row) => {
      const old = before.get(keyOf(row));
      return old === undefined || !same(old, row);
    });
    const remove = [...before.keys()].filter((key) => !nextKeys.has(key));
    const draft: ListDiff<R> = { upsert, remove, order: null };
    // The order goes along only when applying the rest would not give it.
    const order = next.map(keyOf);
    if (!sameKeys(apply(previous, draft).map(keyOf), order)) draft.order = order;
    if (upsert.length === 0 && remove.length === 0 && draft.order === null) return null;
    return draft;
  };

  return { diff, apply };
}
