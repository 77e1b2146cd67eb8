/**
 * A live log tail as small diffs: how many lines left the front (the tail is bounded) and the lines that
 * arrived at the end. Pure, shared by the stream that sends and the panel that applies it.
 */
export type TailDiff<L> = { drop: number; append: L[] };

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** Whether `previous` from `start` on is where `next` begins. */
function overlapsFrom<L>(previous: readonly L[], next: readonly L[], start: number): boolean {
  const length = previous.length - start;
  if (length > next.length) return false;
  for (let index = 0; index < length; index += 1) {
    if (!same(previous[start + index], next[index])) return false;
  }
  return true;
}

/**
 * null when the tail is unchanged; otherwise the fewest lines dropped from the front such that the rest of
 * `previous` starts `next`, and what follows it (the whole of `next` when they share nothing).
 */
export function diffTail<L>(previous: readonly L[], next: readonly L[]): TailDiff<L> | null {
  if (previous.length === next.length && overlapsFrom(previous, next, 0)) return null;
  for (let drop = 0; drop < previous.length; drop += 1) {
    if (overlapsFrom(previous, next, drop)) return { drop, append: next.slice(previous.length - drop) };
  }
  return { drop: previous.length, append: [...next] };
}

export function applyTail<L>(lines: readonly L[], diff: TailDiff<L>): L[] {
  return [...lines.slice(diff.drop), ...diff.append];
}
