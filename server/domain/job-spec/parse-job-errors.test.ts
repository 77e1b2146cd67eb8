import { describe, expect, it } from "vitest";
import { errorsOf, FULL_JOB_YAML, lineOf, mutate } from "./job-spec.fixtures";
import { formatJobSpecErrors, type JobSpecError } from "./job-spec-errors";

/** Mutates FULL_JOB_YAML and expects exactly one error at `path`, on the line containing `lineNeedle`. */
function expectSingleError(options: {
  from: string;
  to: string;
  path: string;
  lineNeedle?: string;
}): JobSpecError {
  const yaml = mutate(FULL_JOB_YAML, options.from, options.to);
  const errors = errorsOf(yaml);
  expect(errors).toHaveLength(1);
  const [error] = errors;
  expect(error?.path).toBe(options.path);
  expect(error?.line).toBe(lineOf(yaml, options.lineNeedle ?? options.to));
  return error as JobSpecError;
}

const RULES = "spec.runPolicy.logMonitoringConfiguration";

describe("parseJobYaml: each bad field is reported with its path and line", () => {
  it("rejects a lookahead in logPattern with the engine's reason", () => {
    const error = expectSingleError({
      from: 'logPattern: ".*CUDA out of memory.*"',
      to: 'logPattern: ".*(?=CUDA).*"',
      path: `${RULES}[3].logPattern`,
    });
    expect(error.message).toMatch(/lookahead/);
    expect(error.column).toBe(21);
  });

  it("rejects an unknown operator", () => {
    const error = expectSingleError({
      from: "operator: lteq",
      to: "operator: gte",
      path: `${RULES}[2].operator`,
    });
    expect(error.message).toBe('expected one of gt, lt, eq, gteq, lteq, got "gte"');
  });

  it.each([
    ["evalPeriodSeconds: 21600", "evalPeriodSeconds: -5", "spec.runPolicy.restartPolicy.evalPeriodSeconds"],
    ["jobMaxRetryCount: 20", "jobMaxRetryCount: -1", "spec.runPolicy.jobMaxRetryCount"],
    ["maxFullJobRestarts: 2", "maxFullJobRestarts: -2", "spec.runPolicy.restartPolicy.maxFullJobRestarts"],
    ["spares: 1", "spares: -1", "spec.replicaSpecs[0].spares"],
    ["replicas: 4", "replicas: -4", "spec.replicaSpecs[0].replicas"],
    [
      "expectedStartCutOffInSeconds: 180",
      "expectedStartCutOffInSeconds: -3",
      `${RULES}[0].expectedStartCutOffInSeconds`,
    ],
  ])("rejects a negative count: %s → %s", (from, to, path) => {
    const error = expectSingleError({ from, to, path });
    expect(error.message).toMatch(/^expected a (positive|non-negative) integer.*, got -\d$/);
  });

  it("formats errors as 'line N, path: message'", () => {
    const yaml = mutate(FULL_JOB_YAML, "evalPeriodSeconds: 21600", "evalPeriodSeconds: -5");
    expect(formatJobSpecErrors(errorsOf(yaml))).toBe(
      `line ${lineOf(yaml, "evalPeriodSeconds")}, spec.runPolicy.restartPolicy.evalPeriodSeconds: expected a positive integer, got -5`,
    );
  });

  it("reports a missing evalPeriodSeconds at its restartPolicy", () => {
    const error = expectSingleError({
      from: "      evalPeriodSeconds: 21600\n",
      to: "",
      path: "spec.runPolicy.restartPolicy.evalPeriodSeconds",
      lineNeedle: "restartPolicy:",
    });
    expect(error.message).toBe('missing required field "evalPeriodSeconds"');
  });

  it("reports a missing logPattern at its rule", () => {
    const error = expectSingleError({
      from: '        logPattern: ".*CUDA out of memory.*"\n',
      to: "",
      path: `${RULES}[3].logPattern`,
      lineNeedle: "name: CudaOutOfMemory",
    });
    expect(error.message).toBe('missing required field "logPattern"');
  });

  it("reports missing names of a rule, a replica spec and the job", () => {
    expectSingleError({
      from: "- name: TrainingStarted\n        logPattern",
      to: "- logPattern",
      path: `${RULES}[0].name`,
      lineNeedle: "Experiment configuration",
    });
    expectSingleError({
      from: "- name: workers\n      replicas",
      to: "- replicas",
      path: "spec.replicaSpecs[0].name",
      lineNeedle: "replicas: 4",
    });
    expectSingleError({
      from: "  name: llama-pretrain\n",
      to: "",
      path: "metadata.name",
      lineNeedle: "kind: HyperPodPyTorchJob\nmetadata:",
    });
  });

  it("reports a block value of the wrong shape at the key that holds it", () => {
    let yaml = mutate(FULL_JOB_YAML, "    kueue.x-k8s.io/queue-name", "    - kueue.x-k8s.io/queue-name");
    yaml = mutate(yaml, "    kueue.x-k8s.io/priority-class", "    - kueue.x-k8s.io/priority-class");
    expect(errorsOf(yaml)).toEqual([
      { path: "metadata.labels", line: 6, column: 3, message: "expected record, got a list" },
    ]);
  });

  it("tells the user to quote a numeric nprocPerNode", () => {
    const error = expectSingleError({
      from: 'nprocPerNode: "8"',
      to: "nprocPerNode: 8",
      path: "spec.nprocPerNode",
    });
    expect(error.message).toBe('expected a string: quote the number, e.g. nprocPerNode: "8", got 8');
    expect(error.column).toBe(17);
  });

  it("rejects an unknown nested key, points at the key and suggests the right one", () => {
    const error = expectSingleError({
      from: "numRestartBeforeFullJobRestart: 3",
      to: "numRestartBeforeFullJobRestarts: 3",
      path: "spec.runPolicy.restartPolicy.numRestartBeforeFullJobRestarts",
    });
    expect(error.message).toBe(
      'unknown field "numRestartBeforeFullJobRestarts"; did you mean "numRestartBeforeFullJobRestart"?',
    );
    expect(error.column).toBe(7);
  });

  it("rejects replicaIncrementStep together with replicaDiscreteValues", () => {
    const error = expectSingleError({
      from: "replicaIncrementStep: 2",
      to: "replicaIncrementStep: 2\n    replicaDiscreteValues: [4, 6, 8]",
      path: "spec.elasticPolicy.replicaDiscreteValues",
      lineNeedle: "replicaDiscreteValues",
    });
    expect(error.message).toMatch(/mutually exclusive/);
  });

  it("sorts several errors by line", () => {
    let yaml = mutate(FULL_JOB_YAML, "faultDeadlineSeconds: 3600", "faultDeadlineSeconds: 0");
    yaml = mutate(yaml, "cleanPodPolicy: OnlyComplete", "cleanPodPolicy: Always");
    yaml = mutate(yaml, "name: llama-pretrain", "name: Llama_Pretrain");
    expect(errorsOf(yaml).map((error) => [error.line, error.path])).toEqual([
      [4, "metadata.name"],
      [lineOf(yaml, "cleanPodPolicy"), "spec.runPolicy.cleanPodPolicy"],
      [lineOf(yaml, "faultDeadlineSeconds"), "spec.runPolicy.faultDeadlineSeconds"],
    ]);
  });

  it("orders errors by line even when the YAML order differs from the schema order", () => {
    const yaml = [
      "apiVersion: sagemaker.amazonaws.com/v1",
      "kind: HyperPodPyTorchJob",
      "metadata: { name: ordered }",
      "spec:",
      "  runPolicy:",
      "    jobMaxRetryCount: -1",
      "  replicaSpecs:",
      "    - name: Pods",
      "      template: { spec: { containers: [{ name: c }] } }",
      "  nprocPerNode: 8",
      "",
    ].join("\n");
    expect(errorsOf(yaml).map((error) => [error.line, error.column, error.path])).toEqual([
      [6, 23, "spec.runPolicy.jobMaxRetryCount"],
      [8, 13, "spec.replicaSpecs[0].name"],
      [10, 17, "spec.nprocPerNode"],
    ]);
  });
});
