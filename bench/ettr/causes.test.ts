import { describe, expect, it } from "vitest";
import { causeFractions, LLAMA3_CAUSES, LLAMA3_INTERRUPTIONS, pathFractions } from "./causes";

describe("the Llama 3 root-cause mix", () => {
  it("counts the 419 interruptions of Table 5, and its fractions sum to 1", () => {
    expect(LLAMA3_CAUSES.reduce((sum, cause) => sum + cause.count, 0)).toBe(LLAMA3_INTERRUPTIONS);
    expect(causeFractions(LLAMA3_CAUSES).reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
  });

  it("matches each printed percentage but Faulty GPU's to the count over 419", () => {
    const off = LLAMA3_CAUSES.filter(
      (cause) => Math.abs((cause.count / LLAMA3_INTERRUPTIONS) * 100 - cause.printedPercent) > 0.05,
    );
    expect(off.map((cause) => cause.name)).toEqual(["Faulty GPU"]);
  });

  it("sends software faults in place and the rest to a pod replacement", () => {
    const shares = pathFractions(LLAMA3_CAUSES);
    expect(shares.inplace).toBeCloseTo(63 / 419, 12);
    expect(shares.replace + shares.inplace).toBeCloseTo(1, 12);
  });
});
