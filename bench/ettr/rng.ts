/**
 * A seeded random source for the ETTR simulation (bench/ettr/simulate.ts): the same `--seed` gives the same
 * faults, causes and resampled control-plane times on every run and machine, so a change in a figure is a
 * change in the model or the measurement, not in the dice. mulberry32: 32-bit state, uniform in [0, 1).
 */
export type Random = () => number;

export function seededRandom(seed: number): Random {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** An exponential draw with this mean (the gap between faults of a Poisson process). */
export function exponential(random: Random, mean: number): number {
  if (mean === Number.POSITIVE_INFINITY) return mean;
  return -mean * Math.log(1 - random());
}

/** The index a uniform draw `u` in [0, 1) falls on, for weights that need not sum to 1. */
export function weightedIndex(weights: readonly number[], u: number): number {
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  let edge = 0;
  for (const [index, weight] of weights.entries()) {
    edge += weight / total;
    if (u < edge) return index;
  }
  return weights.length - 1;
}
