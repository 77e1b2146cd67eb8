import { describe, expect, it } from "vitest";
import { parsePythonFloat } from "./python-float";

describe("parsePythonFloat (Python float())", () => {
  it.each([
    ["1", 1],
    ["2.5", 2.5],
    ["1.", 1],
    [".5", 0.5],
    ["-0.25", -0.25],
    ["+3", 3],
    ["1e-3", 0.001],
    ["1E3", 1000],
    ["1_000.000_1", 1000.0001],
    ["  7.5 \t", 7.5],
    ["inf", Number.POSITIVE_INFINITY],
    ["-Infinity", Number.NEGATIVE_INFINITY],
    ["+INF", Number.POSITIVE_INFINITY],
    ["1e999", Number.POSITIVE_INFINITY],
  ])("%j -> %d", (text, expected) => {
    expect(parsePythonFloat(text)).toBe(expected);
  });

  it.each(["nan", "NaN", "-nan", " nan "])("%j -> NaN", (text) => {
    expect(parsePythonFloat(text)).toBeNaN();
  });

  it.each(["", " ", "abc", "0x10", "1,5", "1__0", "_1", "1_", "1e", "--1", "1.2.3", "infinit", "Infinityy"])(
    "%j is rejected",
    (text) => {
      expect(parsePythonFloat(text)).toBeNull();
    },
  );

  it("rejects a missing group", () => {
    expect(parsePythonFloat(undefined)).toBeNull();
  });
});
