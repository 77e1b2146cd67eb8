import { describe, expect, it } from "vitest";
import { afterReadText, capped, offsetText, stateSegments, stripSegments } from "./dry-run-model";

describe("stateSegments", () => {
  it("is WAITING until the first change, then each state until the next, the last one to the end", () => {
    const segments = stateSegments(
      [
        { at: 2000, state: "HEALTHY", lineNumber: 3 },
        { at: 8000, state: "HANGING", lineNumber: null },
      ],
      { start: 0, end: 10_000 },
    );
    expect(segments).toEqual([
      { state: "WAITING", from: 0, to: 2000, share: 0.2 },
      { state: "HEALTHY", from: 2000, to: 8000, share: 0.6 },
      { state: "HANGING", from: 8000, to: 10_000, share: 0.2 },
    ]);
  });

  it("merges repeated states, drops zero-length spans and orders changes by time", () => {
    const segments = stateSegments(
      [
        { at: 5000, state: "HEALTHY", lineNumber: 9 },
        { at: 0, state: "HEALTHY", lineNumber: 1 },
      ],
      { start: 0, end: 10_000 },
    );
    expect(segments).toEqual([{ state: "HEALTHY", from: 0, to: 10_000, share: 1 }]);
  });

  it("gives a run with no span one whole segment in its last state", () => {
    expect(stateSegments([{ at: 0, state: "FAULTED", lineNumber: 1 }], { start: 0, end: 0 })).toEqual([
      { state: "FAULTED", from: 0, to: 0, share: 1 },
    ]);
  });
});

describe("capped", () => {
  it("shows the first items and counts the rest", () => {
    const lines = Array.from({ length: 120 }, (_, index) => index);
    const { shown, hidden } = capped(lines, 50);
    expect(shown).toHaveLength(50);
    expect(shown[49]).toBe(49);
    expect(hidden).toBe(70);
    expect(capped([1, 2], 50)).toEqual({ shown: [1, 2], hidden: 0 });
  });
});

describe("offsetText", () => {
  it("says simulated time from the start in seconds", () => {
    expect(offsetText(12_345, 0)).toBe("+12.3 s");
    expect(offsetText(150_400, 400)).toBe("+150 s");
  });
});

describe("stripSegments", () => {
  it("keeps short runs as they are", () => {
    const segments = stateSegments([{ at: 5, state: "HEALTHY", lineNumber: 1 }], { start: 0, end: 10 });
    expect(stripSegments(segments, 200)).toBe(segments);
  });

  it("draws a flapping run as buckets in the worst state each held, covering the whole span", () => {
    const changes = Array.from({ length: 4000 }, (_, index) => ({
      at: index * 10,
      state: index % 2 === 0 ? ("HEALTHY" as const) : ("SLOW" as const),
      lineNumber: index + 1,
    }));
    const strip = stripSegments(stateSegments(changes, { start: 0, end: 40_000 }), 100);
    expect(strip.length).toBeLessThanOrEqual(100);
    expect(strip.every((segment) => segment.state === "SLOW")).toBe(true);
    expect(strip[0]?.from).toBe(0);
    expect(strip.at(-1)?.to).toBe(40_000);
    expect(strip.reduce((sum, segment) => sum + segment.share, 0)).toBeCloseTo(1);
  });
});

describe("afterReadText", () => {
  it("says how long after the read a deadline falls, in whole seconds, never negative", () => {
    expect(afterReadText(19_400, 10_000)).toBe("9 s after the output was read");
    expect(afterReadText(9_000, 10_000)).toBe("0 s after the output was read");
  });
});
