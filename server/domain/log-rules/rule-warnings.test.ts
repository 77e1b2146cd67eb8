import { describe, expect, it } from "vitest";
import { logMonitoringRuleSchema } from "./log-rule.schema";
import { logRuleWarnings } from "./rule-warnings";

function warningsOf(raw: Record<string, unknown>[]) {
  const rules = raw.map((rule) => logMonitoringRuleSchema.parse(rule));
  return logRuleWarnings(raw, rules);
}

const hang = { name: "hang", logPattern: ".*step=(\\d+).*", expectedRecurringFrequencyInSeconds: 10 };

describe("logRuleWarnings", () => {
  it("has nothing to say about a rule hyperpodrun reads in full", () => {
    const slow = { name: "slow", logPattern: ".*tput=(\\d+).*", metricThreshold: 100, operator: "lt" };
    expect(warningsOf([hang, slow, { name: "oom", logPattern: ".*OOM.*", faultOnMatch: true }])).toEqual([]);
  });

  it("names an unknown key, what the agent does with it, and a likely typo", () => {
    expect(warningsOf([{ ...hang, foo: 1, stoppattern: ".*done.*" }])).toEqual([
      {
        path: [0, "foo"],
        target: "key",
        message: 'rule hang: key "foo" is not a HyperPod rule key; hyperpodrun ignores it',
      },
      {
        path: [0, "stoppattern"],
        target: "key",
        message:
          'rule hang: key "stoppattern" is not a HyperPod rule key; hyperpodrun ignores it (did you mean "stopPattern"?)',
      },
    ]);
  });

  it("says a metric check with a missing half or no capture group never fires", () => {
    const found = warningsOf([
      { ...hang, name: "a", metricThreshold: 5 },
      { ...hang, name: "b", operator: "gt" },
      { ...hang, name: "c", logPattern: ".*step.*", metricThreshold: 5, operator: "gt" },
    ]);
    expect(found.map((w) => [w.path, w.message])).toEqual([
      [
        [0, "metricThreshold"],
        "rule a: metricThreshold is set without operator; hyperpodrun never compares the metric, so this rule is never SLOW",
      ],
      [
        [1, "operator"],
        "rule b: operator is set without metricThreshold; hyperpodrun never compares the metric, so this rule is never SLOW",
      ],
      [
        [2, "logPattern"],
        "rule c: logPattern has no capturing group for the metric; hyperpodrun never compares the metric, so this rule is never SLOW",
      ],
    ]);
  });

  it("says a fraction is truncated, but not for a numeric string", () => {
    const found = warningsOf([{ ...hang, expectedRecurringFrequencyInSeconds: 2.5, metricThreshold: "3" }]);
    expect(found.map((w) => w.message)).toEqual([
      "rule hang: expectedRecurringFrequencyInSeconds 2.5 is used as 2 (hyperpodrun applies int())",
      "rule hang: metricThreshold is set without operator; hyperpodrun never compares the metric, so this rule is never SLOW",
    ]);
  });

  it("says a rule that can never fault is inert", () => {
    const found = warningsOf([{ name: "done", logPattern: ".*Loss:.*", stopPattern: ".*complete.*" }]);
    expect(found).toEqual([
      {
        path: [0],
        target: "value",
        message: expect.stringMatching(/^rule done: never faults the job: it sets none of/),
      },
    ]);
  });

  it("accepts duplicate names with a warning on the second", () => {
    expect(warningsOf([hang, hang])).toEqual([
      {
        path: [1, "name"],
        target: "value",
        message:
          "rule hang: rule 0 has the same name; a failure reason (e.g. LogHang_hang) does not say which of them fired",
      },
    ]);
  });
});
