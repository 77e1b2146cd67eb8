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

  it("keeps unknown keys (hyperpodrun ignores them)", () => {
    const parsed = logMonitoringRuleSchema.parse({ name: "r", logPattern: "x", logpattern: "y" });
    expect(parsed).toEqual({ name: "r", logPattern: "x", logpattern: "y" });
  });

  it.each([
    ["expectedStartCutOffInSeconds", -1],
    ["expectedStartCutOffInSeconds", "1.5"],
    ["expectedStartCutOffInSeconds", "-1"],
    ["expectedRecurringFrequencyInSeconds", "thirty"],
    ["expectedRecurringFrequencyInSeconds", null],
    ["metricThreshold", "2.0"],
    ["metricThreshold", true],
    ["metricEvaluationDataPoints", 0],
    ["metricEvaluationDataPoints", "0"],
    ["faultOnMatch", "true"],
    ["operator", "ge"],
    ["stopPattern", null],
  ])("rejects %s = %j at its path (Python int()/re.compile would raise)", (field, value) => {
    const found = issues({
      name: "r",
      logPattern: "(x)",
      metricThreshold: 1,
      operator: "gt",
      [field]: value,
    });
    expect(found.map((i) => i.path)).toEqual([[field]]);
  });

  it.each([
    ["expectedStartCutOffInSeconds", "60", 60],
    ["expectedStartCutOffInSeconds", " +60 ", 60],
    ["expectedRecurringFrequencyInSeconds", "1_000", 1000],
    ["expectedRecurringFrequencyInSeconds", 1.9, 1],
    ["metricThreshold", "100", 100],
    ["metricThreshold", 2.9, 2],
    ["metricThreshold", -2.9, -2],
    ["metricThreshold", "-3", -3],
    ["metricEvaluationDataPoints", "5", 5],
    ["metricEvaluationDataPoints", 2.5, 2],
  ])("reads %s = %j as Python int() does: %j", (field, value, expected) => {
    const parsed = logMonitoringRuleSchema.parse({ name: "r", logPattern: "(x)", [field]: value });
    expect(parsed[field]).toBe(expected);
  });

  it("reads a null operator or faultOnMatch as absent (rule.get() gives None)", () => {
    const parsed = logMonitoringRuleSchema.parse({
      name: "r",
      logPattern: "x",
      operator: null,
      faultOnMatch: null,
    });
    expect(parsed.operator).toBeUndefined();
    expect(parsed.faultOnMatch).toBeUndefined();
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

  it("accepts a metricThreshold without operator, the reverse, and no capture group", () => {
    expect(issues({ name: "r", logPattern: "(x)", metricThreshold: 1 })).toEqual([]);
    expect(issues({ name: "r", logPattern: "(x)", operator: "gt" })).toEqual([]);
    expect(issues({ name: "r", logPattern: ".*loss.*", metricThreshold: 1, operator: "gt" })).toEqual([]);
  });

  it("rejects a non-finite threshold", () => {
    expect(
      issues({ name: "r", logPattern: "(x)", metricThreshold: Number.POSITIVE_INFINITY, operator: "gt" }),
    ).toEqual([{ path: ["metricThreshold"], message: expect.stringMatching(/^expected a finite number/) }]);
  });
});
