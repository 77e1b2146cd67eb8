import { describe, expect, it } from "vitest";
import { findStragglers, type StragglerInput } from "./straggler";

const ranks = (throughputs: Array<number | null>, steps: Array<number | null> = []): StragglerInput[] =>
  throughputs.map((throughput, rank) => ({ rank, throughput, step: steps[rank] ?? null }));

const sorted = (set: Set<number>) => [...set].sort((a, b) => a - b);

describe("findStragglers: throughput", () => {
  it("flags a rank below 0.7 × its peers' median", () => {
    expect(sorted(findStragglers(ranks([100, 101, 99, 69, 100])))).toEqual([3]);
  });

  it("does not flag at exactly 0.7 × the median, nor ordinary jitter", () => {
    expect(findStragglers(ranks([100, 100, 100, 70])).size).toBe(0);
    expect(findStragglers(ranks([100, 92, 108, 95, 103])).size).toBe(0);
  });

  it("flags nobody with fewer than 4 reporting ranks", () => {
    expect(findStragglers(ranks([100, 100, 10])).size).toBe(0);
    expect(findStragglers(ranks([100, null, 100, Number.NaN, 10])).size).toBe(0);
    expect(findStragglers([]).size).toBe(0);
  });

  it("ignores null, NaN, Infinity and negative throughputs", () => {
    const input = ranks([100, 100, Number.NaN, 100, Number.POSITIVE_INFINITY, -5, null, 20]);
    expect(sorted(findStragglers(input))).toEqual([7]);
  });

  it("leaves the rank out of its own median (matters on small jobs)", () => {
    // With itself included the median of [10, 10, 100, 100] is 55; its peers' is 100.
    expect(sorted(findStragglers(ranks([10, 100, 100, 100])))).toEqual([0]);
  });

  it("is robust to a minority of bad ranks and flags a stalled rank at 0", () => {
    expect(sorted(findStragglers(ranks([100, 100, 100, 100, 100, 0, 20, 30])))).toEqual([5, 6, 7]);
  });

  it("flags nobody when the peers' median is 0", () => {
    expect(findStragglers(ranks([0, 0, 0, 0, 5])).size).toBe(0);
  });
});

describe("findStragglers: step fallback", () => {
  it("flags a rank lagging more than 3 steps when no throughput is reported", () => {
    const input = ranks([null, null, null, null, null], [20, 20, 19, 16, 21]);
    expect(sorted(findStragglers(input))).toEqual([3]);
    expect(findStragglers(ranks([null, null, null, null], [20, 20, 20, 17])).size).toBe(0);
  });

  it("allows a lag of 10% of the median on long runs", () => {
    const input = ranks([null, null, null, null], [1000, 1000, 1000, 905]);
    expect(findStragglers(input).size).toBe(0);
    expect(sorted(findStragglers(ranks([null, null, null, null], [1000, 1000, 1000, 899])))).toEqual([3]);
  });

  it("judges only ranks without a throughput by step when throughput is available", () => {
    const input = ranks([100, 100, 100, 100, null], [500, 500, 500, 100, 100]);
    // Rank 3 is slow by step but fine by throughput; rank 4 has no throughput and lags.
    expect(sorted(findStragglers(input))).toEqual([4]);
  });
});

describe("findStragglers: scale", () => {
  it("handles 256 nodes × 8 ranks (a quadratic median would time this test out)", () => {
    const input = Array.from({ length: 2048 }, (_, rank) => ({
      rank,
      throughput: rank % 512 === 7 ? 50 : 100 + (rank % 13),
      step: rank === 2047 ? 1 : 1000,
    }));
    expect(sorted(findStragglers(input))).toEqual([7, 519, 1031, 1543]);
    const noThroughput = input.map((rank) => ({ ...rank, throughput: null }));
    expect(sorted(findStragglers(noThroughput))).toEqual([2047]);
  });
});
