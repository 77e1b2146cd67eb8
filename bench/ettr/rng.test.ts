import { describe, expect, it } from "vitest";
import { exponential, seededRandom, weightedIndex } from "./rng";

describe("the seeded random source", () => {
  it("repeats for a seed and stays in [0, 1)", () => {
    const a = seededRandom(42);
    const b = seededRandom(42);
    const draws = Array.from({ length: 1000 }, () => a());
    expect(draws).toEqual(Array.from({ length: 1000 }, () => b()));
    expect(draws.every((u) => u >= 0 && u < 1)).toBe(true);
  });

  it("draws exponential gaps with the asked mean", () => {
    const random = seededRandom(3);
    const n = 200_000;
    let sum = 0;
    for (let i = 0; i < n; i++) sum += exponential(random, 6480);
    expect(Math.abs(sum / n - 6480) / 6480).toBeLessThan(0.01);
    expect(exponential(random, Number.POSITIVE_INFINITY)).toBe(Number.POSITIVE_INFINITY);
  });

  it("picks by weight", () => {
    expect(weightedIndex([1, 3], 0.2)).toBe(0);
    expect(weightedIndex([1, 3], 0.25)).toBe(1);
    expect(weightedIndex([1, 3], 0.999)).toBe(1);
  });
});
