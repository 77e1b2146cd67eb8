import { describe, expect, it } from "vitest";
import { expandedSize } from "./expanded-size";

const bytesOf = (value: unknown) => new TextEncoder().encode(JSON.stringify(value)).length;

describe("expandedSize", () => {
  it.each([
    ["a scalar", 42],
    ["a string with escapes and UTF-8", 'a "q" é\n€'],
    ["empty collections", { a: [], b: {} }],
    [
      "a nested job-like object",
      { spec: { replicas: 2, args: ["--x", "y"], env: [{ name: "A", value: null }] } },
    ],
  ])("is the JSON byte length of %s", (_name, value) => {
    expect(expandedSize(value, Number.POSITIVE_INFINITY)).toBe(bytesOf(value));
  });

  it("counts a shared value once per place, as aliases repeat it", () => {
    const big = "x".repeat(1000);
    const value = { list: Array.from({ length: 50 }, () => big) };
    expect(expandedSize(value, Number.POSITIVE_INFINITY)).toBe(bytesOf(value));
  });

  it("stops soon after the limit, whatever the full size would be", () => {
    let level: unknown = ["x".repeat(100)];
    for (let depth = 0; depth < 30; depth += 1) level = [level, level];
    const size = expandedSize(level, 10_000);
    expect(size).toBeGreaterThan(10_000);
    expect(size).toBeLessThan(10_300);
  });
});
