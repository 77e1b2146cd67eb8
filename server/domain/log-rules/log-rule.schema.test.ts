import { describe, expect, it } from "vitest";
import { logMonitoringRuleSchema } from "./log-rule.schema";

function issues(input: unknown): { path: PropertyKey[]; message: string }[] {
  const result = logMonitoringRuleSchema.safeParse(input);
  if (result.success) return [];
  return result.error.issues.map(({ path, message }) => ({ path, message }));
}

describe("logMonitoringRuleSchema", () => {
  it("accepts the documented HyperPod examples", () => {
    const rules = [
      { name: "JobStart", logPattern: ".*Experiment configuration.*", expectedStartCutOffInSeconds: 240 },
      {
        name: "JobHangingDetection",
        logPattern: ".*\\[Epoch 0 Batch \\d+.*'training_loss_step': (\\d+(\\.\\d+)?).*",
        expectedRecurringFrequencyInSeconds: 300,
        metricThreshold: 1,
        operator: "lteq",
        metricEvaluationDataPoints: 25,
      },
      { name: "Throughput", logPattern: ".* (.+)TFLOPs.*", metricThreshold: 2.0, operator: "lt" },
      { name: "OOM", logPattern: ".*RuntimeError.*out of memory.*", faultOnMatch: true },
      { name: "Done", logPattern: ".*Loss:.*", stopPattern: ".*Training complete.*" },
    ];
    for (const rule of rules) expect(issues(rule)).toEqual([]);
  });

  it("requires name and logPattern", () => {
    expect(issues({ logPattern: "x" }).map((i) => i.path)).toEqual([["name"]]);
    expect(issues({ name: "r" }).map((i) => i.path)).toEqual([["logPattern"]]);
    expect(issues({ name: "", logPattern: "" }).map((i) => i.path)).toEqual([["name"], ["logPattern"]]);
  });

  it("rejects unknown keys", () => {
    expect(issues({ name: "r", logPattern: "x", logpattern: "y" })).toEqual([
      { path: [], message: expect.stringContaining("logpattern") },
    ]);
  });

  it.each([
    ["expectedStartCutOffInSeconds", -1],
    ["expectedStartCutOffInSeconds", 1.5],
    ["expectedRecurringFrequencyInSeconds", "30"],
    ["metricEvaluationDataPoints", 0],
    ["faultOnMatch", "true"],
    ["operator", "ge"],
  ])("rejects %s = %j at its path", (field, value) => {
    const found = issues({
      name: "r",
      logPattern: "(x)",
      metricThreshold: 1,
      operator: "gt",
      [field]: value,
    });
    expect(found.map((i) => i.path)).toEqual([[field]]);
  });

  it("accepts a start cut-off of 0", () => {
    expect(issues({ name: "r", logPattern: "x", expectedStartCutOffInSeconds: 0 })).toEqual([]);
  });

  it("reports why a logPattern or stopPattern is refused", () => {
    expect(issues({ name: "r", logPattern: ".*(?=done)" })).toEqual([
      {
        path: ["logPattern"],
        message: "lookahead (?=...) is not supported: patterns run with a linear-time engine (RE2 syntax)",
      },
    ]);
    expect(issues({ name: "r", logPattern: "x", stopPattern: "(a)\\1" })).toEqual([
      {
        path: ["stopPattern"],
        message: "backreference \\1 is not supported: patterns run with a linear-time engine (RE2 syntax)",
      },
    ]);
  });

  it("requires metricThreshold and operator together", () => {
    expect(issues({ name: "r", logPattern: "(x)", metricThreshold: 1 })).toEqual([
      { path: ["operator"], message: "expected an operator because metricThreshold is set" },
    ]);
    expect(issues({ name: "r", logPattern: "(x)", operator: "gt" })).toEqual([
      { path: ["metricThreshold"], message: "expected a metricThreshold because operator is set" },
    ]);
  });

  it("requires a capture group when a metric is compared", () => {
    const found = issues({ name: "r", logPattern: ".*loss.*", metricThreshold: 1, operator: "gt" });
    expect(found.map((i) => i.path)).toEqual([["logPattern"]]);
    expect(found[0]?.message).toMatch(/^expected a capturing group/);
    expect(issues({ name: "r", logPattern: "(?:x)", metricThreshold: 1, operator: "gt" })).toHaveLength(1);
  });

  it("rejects a non-finite threshold", () => {
    expect(
      issues({ name: "r", logPattern: "(x)", metricThreshold: Number.POSITIVE_INFINITY, operator: "gt" }),
    ).toEqual([{ path: ["metricThreshold"], message: "expected a finite number" }]);
  });
});
