/**
 * The "grey failure" rule: a rank that has not crashed and trips no log rule, yet runs well behind its
 * peers (a throttled GPU, a degraded NVLink or NIC, a noisy neighbour). In synchronous data-parallel
 * training one such rank sets the pace of every other, so the console flags it.
 *
 * - Throughput (preferred, when at least 4 ranks report a finite throughput ≥ 0): a rank is a straggler
 *   when its throughput is below 0.7 × the median throughput of its peers (every other reporting rank).
 *   Why 0.7: per-rank throughput jitters by roughly ±10% from data loading and collectives, so 0.9 flaps;
 *   a 30% shortfall is a persistent fault worth an engineer's look and still well short of the 2× slow-down
 *   that log-rule thresholds usually encode. Why the peers' median: it ignores up to half the ranks being
 *   bad, and leaving the rank itself out keeps it from dragging its own yardstick down on small jobs.
 * - Step (fallback, for a rank without a throughput, when at least 4 ranks report a step): a rank is a
 *   straggler when its step lags its peers' median step by more than max(3 steps, 10% of that median),
 *   so that start-up skew and an in-flight step are not flagged.
 * - Fewer than 4 reporting ranks: nobody is flagged; with 2 or 3 there is no meaningful majority.
 *
 * Nulls, NaN, ±Infinity and negative values are ignored. O(n log n): one sort per signal, then each
 * rank's leave-one-out median is read from the sorted array in O(1).
 */

export type StragglerInput = { rank: number; throughput: number | null; step: number | null };

export const STRAGGLER_MIN_RANKS = 4;
export const STRAGGLER_THROUGHPUT_RATIO = 0.7;
export const STRAGGLER_MIN_STEP_LAG = 3;
export const STRAGGLER_STEP_LAG_FRACTION = 0.1;

const valid = (value: number | null): value is number =>
  value !== null && Number.isFinite(value) && value >= 0;

/**
 * For each value, the median of all the *other* values. `sorted` is ascending; removing the element at
 * sorted index i shifts every later element down by one, so the remaining array is read without copying.
 */
function leaveOneOutMedian(sorted: readonly number[], removed: number): number {
  const size = sorted.length - 1;
  const at = (k: number): number => sorted[k < removed ? k : k + 1] ?? Number.NaN;
  const mid = Math.floor(size / 2);
  return size % 2 === 1 ? at(mid) : (at(mid - 1) + at(mid)) / 2;
}

/** Map from rank to the median of its peers' values, for ranks with a valid value; empty below the minimum. */
function peerMedians(entries: ReadonlyArray<{ rank: number; value: number }>): Map<number, number> {
  const medians = new Map<number, number>();
  if (entries.length < STRAGGLER_MIN_RANKS) return medians;
  const order = [...entries].sort((a, b) => a.value - b.value);
  const sorted = order.map((entry) => entry.value);
  order.forEach((entry, index) => {
    medians.set(entry.rank, leaveOneOutMedian(sorted, index));
  });
  return medians;
}

function collect(
  ranks: readonly StragglerInput[],
  pick: (rank: StragglerInput) => number | null,
): Array<{ rank: number; value: number }> {
  const out: Array<{ rank: number; value: number }> = [];
  for (const rank of ranks) {
    const value = pick(rank);
    if (valid(value)) out.push({ rank: rank.rank, value });
  }
  return out;
}

function lagsBehind(step: number, peerMedian: number): boolean {
  const allowed = Math.max(STRAGGLER_MIN_STEP_LAG, STRAGGLER_STEP_LAG_FRACTION * peerMedian);
  return peerMedian - step > allowed;
}

/** The ranks running well behind their peers; see the file header for the rule and why. */
export function findStragglers(ranks: readonly StragglerInput[]): Set<number> {
  const stragglers = new Set<number>();
  const throughputs = collect(ranks, (rank) => rank.throughput);
  const byThroughput = peerMedians(throughputs);
  for (const { rank, value } of throughputs) {
    const median = byThroughput.get(rank);
    if (median !== undefined && value < STRAGGLER_THROUGHPUT_RATIO * median) stragglers.add(rank);
  }
  const steps = collect(ranks, (rank) => rank.step);
  const byStep = peerMedians(steps);
  for (const { rank, value } of steps) {
    const median = byStep.get(rank);
    if (median !== undefined && !byThroughput.has(rank) && lagsBehind(value, median)) stragglers.add(rank);
  }
  return stragglers;
}
