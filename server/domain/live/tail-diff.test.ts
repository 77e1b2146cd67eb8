import { describe, expect, it } from "vitest";
import { applyTail, diffTail } from "./tail-diff";

describe("a log tail's diff", () => {
  it("is null when the tail is unchanged", () => {
    expect(diffTail(["a", "b"], ["a", "b"])).toBeNull();
    expect(diffTail([], [])).toBeNull();
  });

  it("carries only the new lines when lines were appended", () => {
    expect(diffTail(["a", "b"], ["a", "b", "c", "d"])).toEqual({ drop: 0, append: ["c", "d"] });
  });

  it("drops from the front what the bounded tail let go", () => {
    expect(diffTail(["a", "b", "c"], ["b", "c", "d"])).toEqual({ drop: 1, append: ["d"] });
    expect(diffTail(["a", "b", "c"], ["c", "d", "e"])).toEqual({ drop: 2, append: ["d", "e"] });
  });

  it("sends the whole tail when nothing is shared (a restarted rank's new output)", () => {
    expect(diffTail(["a", "b"], ["x", "y"])).toEqual({ drop: 2, append: ["x", "y"] });
    expect(diffTail(["a", "b"], [])).toEqual({ drop: 2, append: [] });
  });

  it("compares lines by value (lines with their rule matches)", () => {
    const line = (text: string, matches: string[] = []) => ({ text, matches });
    expect(diffTail([line("a")], [line("a"), line("b", ["nan"])])).toEqual({
      drop: 0,
      append: [line("b", ["nan"])],
    });
    expect(diffTail([line("a")], [line("a", ["nan"])])).toEqual({ drop: 1, append: [line("a", ["nan"])] });
  });

  it("round-trips: applyTail(a, diffTail(a, b)) equals b, repeated lines included", () => {
    const cases: Array<[string[], string[]]> = [
      [
        ["x", "x", "x"],
        ["x", "x", "x", "x"],
      ],
      [
        ["x", "y", "x"],
        ["x", "y", "x", "y"],
      ],
      [
        ["a", "b", "a", "b"],
        ["a", "b", "c"],
      ],
      [[], ["a"]],
      [["a"], ["b", "a"]],
    ];
    for (const [a, b] of cases) {
      const diff = diffTail(a, b);
      expect(diff === null ? a : applyTail(a, diff)).toEqual(b);
    }
  });
});
