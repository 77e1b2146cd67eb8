import { describe, expect, it } from "vitest";
import { FULL_JOB_YAML, lineOf, mutate } from "./job-spec.fixtures";
import { formatJobSpecErrors } from "./job-spec-errors";
import { parseJobObject, parseJobYaml } from "./parse-job";

const RULES = "spec.runPolicy.logMonitoringConfiguration";

function accepted(yaml: string) {
  const result = parseJobYaml(yaml);
  if (!result.ok) throw new Error(formatJobSpecErrors(result.errors));
  return result;
}

describe("parseJobYaml: what hyperpodrun accepts is accepted, with warnings for what it ignores", () => {
  it("warns about an unknown rule key at the key's line", () => {
    const yaml = mutate(FULL_JOB_YAML, "faultOnMatch: true", "faultOnMatch: true\n        foo: 1");
    const { warnings, job } = accepted(yaml);
    expect(warnings).toEqual([
      {
        path: `${RULES}[3].foo`,
        line: lineOf(yaml, "foo: 1"),
        column: 9,
        message: 'rule CudaOutOfMemory: key "foo" is not a HyperPod rule key; hyperpodrun ignores it',
      },
    ]);
    // Kept in the job (the agent is handed the rule as written, and ignores the key).
    expect(job.spec.runPolicy.logMonitoringConfiguration?.[3]).toMatchObject({ foo: 1 });
  });

  it("accepts a metricThreshold without operator, warning at the threshold", () => {
    const yaml = mutate(FULL_JOB_YAML, "        operator: lteq\n", "");
    const { warnings } = accepted(yaml);
    expect(warnings).toEqual([
      {
        path: `${RULES}[2].metricThreshold`,
        line: lineOf(yaml, "metricThreshold: 75"),
        column: 26,
        message:
          "rule SlowThroughput: metricThreshold is set without operator; hyperpodrun never compares the metric, so this rule is never SLOW",
      },
    ]);
  });

  it("reads numeric strings as hyperpodrun's int() does, without a warning", () => {
    let yaml = mutate(
      FULL_JOB_YAML,
      "expectedStartCutOffInSeconds: 180",
      'expectedStartCutOffInSeconds: "180"',
    );
    yaml = mutate(yaml, "metricEvaluationDataPoints: 20", 'metricEvaluationDataPoints: "20"');
    const { job, warnings } = accepted(yaml);
    expect(warnings).toEqual([]);
    const rules = job.spec.runPolicy.logMonitoringConfiguration ?? [];
    expect(rules[0]?.expectedStartCutOffInSeconds).toBe(180);
    expect(rules[2]?.metricEvaluationDataPoints).toBe(20);
  });

  it("refuses a string int() rejects, naming the field and line", () => {
    const yaml = mutate(FULL_JOB_YAML, "metricThreshold: 75", 'metricThreshold: "75.5"');
    const result = parseJobYaml(yaml);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors).toEqual([
      {
        path: `${RULES}[2].metricThreshold`,
        line: lineOf(yaml, "metricThreshold"),
        column: 26,
        message: 'expected a finite number or a string of an integer such as "100", got "75.5"',
      },
    ]);
  });

  it("accepts duplicate rule names with a warning at the second", () => {
    const yaml = mutate(FULL_JOB_YAML, "name: SlowThroughput", "name: StepHang # again");
    const { warnings } = accepted(yaml);
    expect(warnings.map((w) => [w.path, w.line])).toEqual([[`${RULES}[2].name`, lineOf(yaml, "# again")]]);
  });

  it("gives the same warnings, without lines, for a JS object", () => {
    const result = parseJobObject({
      apiVersion: "sagemaker.amazonaws.com/v1",
      kind: "HyperPodPyTorchJob",
      metadata: { name: "j", namespace: "default" },
      spec: {
        replicaSpecs: [{ name: "w", template: { spec: { containers: [{ name: "c" }] } } }],
        runPolicy: { logMonitoringConfiguration: [{ name: "r", logPattern: "x", operator: "gt", bar: 1 }] },
      },
    });
    expect(result.ok && result.warnings.map((w) => w.path)).toEqual([
      `${RULES}[0].bar`,
      `${RULES}[0].operator`,
    ]);
  });
});
