import { describe, expect, it } from "vitest";
import { parseConfig } from "./config";
import {
  heapCapMbFor,
  largestSupportedPods,
  memoryLimitMiFor,
  OPERATOR_HEAP_FLAG,
  OPERATOR_HEAP_MB,
  rssBudgetMb,
  SIZED_FOR_PODS,
} from "./operator-sizing";

describe("the operator's memory sizing", () => {
  it("caps the heap at 256 MB for a 2,048-pod (16,384-rank) job", () => {
    expect(OPERATOR_HEAP_MB).toBe(256);
    expect(OPERATOR_HEAP_FLAG).toBe("--max-old-space-size=256");
  });

  it("supports up to 2,500 pods (20,000 ranks at 8 a pod) under that cap, and the job it is sized for", () => {
    expect(largestSupportedPods(OPERATOR_HEAP_MB)).toBe(2500);
    expect(largestSupportedPods(OPERATOR_HEAP_MB)).toBeGreaterThanOrEqual(SIZED_FOR_PODS);
    // A cap sized for the largest supported job is no larger than the shipped one.
    expect(heapCapMbFor(largestSupportedPods(OPERATOR_HEAP_MB))).toBeLessThanOrEqual(OPERATOR_HEAP_MB);
  });

  it("budgets RSS within issue 18's 600 MB at 2,048 pods, and a memory limit above the largest job's budget", () => {
    expect(rssBudgetMb(SIZED_FOR_PODS)).toBeLessThan(600);
    expect(memoryLimitMiFor(OPERATOR_HEAP_MB)).toBe(576);
    expect(memoryLimitMiFor(OPERATOR_HEAP_MB)).toBeGreaterThan(
      rssBudgetMb(largestSupportedPods(OPERATOR_HEAP_MB)),
    );
  });

  it("is what bench:k8s runs the operator with unless told otherwise", () => {
    expect(parseConfig([]).operatorNodeArgs).toEqual([OPERATOR_HEAP_FLAG]);
    expect(parseConfig(["--operator-node-args="]).operatorNodeArgs).toEqual([]);
  });
});
