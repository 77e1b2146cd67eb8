import { describe, expect, it } from "vitest";
import { dryRun } from "./dry-run";
import { MAX_POLICY_YAML_BYTES, parsePolicyYaml, policyToYaml } from "./policy-yaml";

/** The editor's YAML check: problems at the right line and column, bad input refused with words, fast. */

function errorsOf(yaml: string) {
  const parsed = parsePolicyYaml(yaml);
  if (parsed.ok) throw new Error("expected the policy to be refused");
  return parsed.errors;
}

/** Milliseconds `run` took (printed for the note; never asserted). */
function timed<T>(label: string, run: () => T): T {
  const started = performance.now();
  const value = run();
  console.log(`[policy bad input] ${label}: ${(performance.now() - started).toFixed(1)} ms`);
  return value;
}

/**
 * HyperPod's documented runPolicy (docs/hyperpod-compatibility.md, "The job resource"), as a user pastes it.
 */
const HYPERPOD_RUN_POLICY = `jobMaxRetryCount: 50
restartPolicy:
  numRestartBeforeFullJobRestart: 3
  evalPeriodSeconds: 21600
  maxFullJobRestarts: 1
cleanPodPolicy: "All"
logMonitoringConfiguration:
  - name: "JobStart"
    logPattern: ".*Experiment configuration.*" # This is the start of the training script
    expectedStartCutOffInSeconds: 120 # Expected match in the first 2 minutes
  - name: "JobHangingDetection"
    logPattern: ".*\\\\[Epoch 0 Batch \\\\d+.*'training_loss_step': (\\\\d+(\\\\.\\\\d+)?).*"
    expectedRecurringFrequencyInSeconds: 300
    expectedStartCutOffInSeconds: 600 # Allow 10 minutes of job startup time
  - name: "NoS3CheckpointingDetection"
    logPattern: ".*The checkpoint is finalized. All shards is written.*"
    expectedRecurringFrequencyInSeconds: 600
    expectedStartCutOffInSeconds: 1800 # Allow 30 minutes for first checkpoint upload
  - name: "LowThroughputDetection"
    logPattern: ".*\\\\[Epoch 0 Batch \\\\d+.*'samples\\\\/sec': (\\\\d+(\\\\.\\\\d+)?).*"
    metricThreshold: 80 # 80 samples/sec
    operator: "lteq"
    metricEvaluationDataPoints: 25
`;

describe("parsePolicyYaml: nested mistakes at their line and column", () => {
  it("a restartPolicy field of the wrong type", () => {
    const [error] = errorsOf("restartPolicy:\n  evalPeriodSeconds: soon\n");
    expect(error).toMatchObject({ path: "restartPolicy.evalPeriodSeconds", line: 2, column: 22 });
  });

  it("a field of the third rule", () => {
    const yaml = `logMonitoringConfiguration:
  - name: a
    logPattern: '.*a.*'
    faultOnMatch: true
  - name: b
    logPattern: '.*b.*'
    faultOnMatch: true
  - name: c
    logPattern: '.*c.*'
    metricEvaluationDataPoints: zero
`;
    const [error] = errorsOf(yaml);
    expect(error).toMatchObject({
      path: "logMonitoringConfiguration[2].metricEvaluationDataPoints",
      line: 10,
      column: 33,
    });
    expect(error?.message).toMatch(/positive integer/);
  });

  it("a list where a mapping is expected, at the item", () => {
    const [error] = errorsOf("logMonitoringConfiguration:\n  - just a string\n");
    expect(error).toMatchObject({ path: "logMonitoringConfiguration[0]", line: 2, column: 5 });
  });

  it("an unknown key, at the key, with a suggestion", () => {
    const [error] = errorsOf("restartPolicy:\n  evalPeriodSeconds: 60\n  maxFullJobRestart: 2\n");
    expect(error).toMatchObject({ line: 3, column: 3 });
    expect(error?.message).toMatch(/maxFullJobRestarts/);
  });

  it("a repeated rule name, at the second one", () => {
    const yaml = `logMonitoringConfiguration:
  - name: hang
    logPattern: '.*step.*'
    expectedRecurringFrequencyInSeconds: 30
  - name: hang
    logPattern: '.*loss.*'
    expectedRecurringFrequencyInSeconds: 30
`;
    const [error] = timed("repeated rule name", () => errorsOf(yaml));
    expect(error).toMatchObject({ path: "logMonitoringConfiguration[1].name", line: 5, column: 11 });
    expect(error?.message).toMatch(/repeats rule 1's name/);
  });

  it("a YAML syntax error", () => {
    const [error] = errorsOf("restartPolicy:\n  evalPeriodSeconds: [60\n");
    expect(error?.message).toMatch(/YAML syntax error/);
    expect(error?.line).toBeGreaterThanOrEqual(2);
  });
});

describe("parsePolicyYaml: patterns the linear-time engine cannot run", () => {
  it.each([
    ["(?!nan).*loss.*", /negative lookahead.*instead, match the lines you do want/],
    ["(?<=loss=)[0-9]+", /lookbehind.*instead, match the text before it/],
    ["(step) \\1", /backreference.*instead, write the repeated text out/],
    ["a++", /possessive.*instead, drop the extra \+/],
  ])("%s is refused with what to write instead", (pattern, message) => {
    const yaml = `logMonitoringConfiguration:\n  - name: r\n    logPattern: '${pattern}'\n    faultOnMatch: true\n`;
    const [error] = timed(`pattern ${pattern}`, () => errorsOf(yaml));
    expect(error).toMatchObject({ path: "logMonitoringConfiguration[0].logPattern", line: 3 });
    expect(error?.message).toMatch(message);
  });
});

describe("parsePolicyYaml: oversized and hostile input", () => {
  it("refuses a 10 MB paste before reading it", () => {
    const text = `# ${"x".repeat(10 * 1024 * 1024)}\n`;
    const [error] = timed("10 MB paste", () => errorsOf(text));
    expect(error?.message).toMatch(/10\.0 MB; at most 64\.0 KiB/);
  });

  it("refuses an alias bomb", () => {
    const lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (let i = 0; i < 8; i++) {
      const name = String.fromCharCode(98 + i);
      const prev = String.fromCharCode(97 + i);
      lines.push(`${name}: &${name} [${Array(9).fill(`*${prev}`).join(",")}]`);
    }
    const [error] = timed("alias bomb", () => errorsOf(`${lines.join("\n")}\n`));
    expect(error?.message).toMatch(/alias|Excessive/i);
  });

  it("a policy of exactly the limit is read (the bound is not off by one)", () => {
    const pad = "# ".concat("x".repeat(MAX_POLICY_YAML_BYTES - 40)).concat("\n");
    const parsed = parsePolicyYaml(`${pad}jobMaxRetryCount: 3\n`.slice(0, MAX_POLICY_YAML_BYTES));
    expect(parsed.ok).toBe(true);
  });
});

describe("parsePolicyYaml: what it accepts", () => {
  it("HyperPod's documented runPolicy, unchanged, and it dry-runs", () => {
    const parsed = parsePolicyYaml(HYPERPOD_RUN_POLICY);
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
    expect(parsed.runPolicy.logMonitoringConfiguration?.map((rule) => rule.name)).toEqual([
      "JobStart",
      "JobHangingDetection",
      "NoS3CheckpointingDetection",
      "LowThroughputDetection",
    ]);
    const log = [
      "2026-03-01 12:00:00,000 [INFO] Experiment configuration: {...}",
      "2026-03-01 12:01:00,000 [INFO] [Epoch 0 Batch 10 ...] {'training_loss_step': 2.31, 'samples/sec': 120.5}",
      "2026-03-01 12:02:00,000 [INFO] [Epoch 0 Batch 20 ...] {'training_loss_step': 2.11, 'samples/sec': 118.0}",
    ].join("\n");
    const result = dryRun({ runPolicy: parsed.runPolicy, logText: log });
    expect(result.timestamped).toBe(3);
    expect(result.rules.find((rule) => rule.name === "JobHangingDetection")?.matchCount).toBe(2);
    // Output stops: the 300 s recurring window runs out 300 s after the last batch line.
    expect(result.fault).toMatchObject({
      rule: "JobHangingDetection",
      state: "HANGING",
      reason: "LogHang_JobHangingDetection",
    });
    expect(result.fault?.at).toBe(Date.UTC(2026, 2, 1, 12, 7, 1));
  });

  it("a whole job pasted in: its spec.runPolicy, with a note", () => {
    const job = `apiVersion: sagemaker.amazonaws.com/v1
kind: HyperPodPyTorchJob
metadata:
  name: demo
spec:
  nprocPerNode: "1"
  replicaSpecs:
    - name: workers
      replicas: 1
      template:
        spec:
          containers:
            - name: trainer
              image: demo
  runPolicy:
    jobMaxRetryCount: 4
`;
    const parsed = parsePolicyYaml(job);
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
    expect(parsed.runPolicy.jobMaxRetryCount).toBe(4);
    expect(parsed.notes.join()).toMatch(/whole HyperPodPyTorchJob/);
  });

  it("an empty document: HyperPod's defaults", () => {
    const parsed = parsePolicyYaml("# nothing yet\n");
    expect(parsed).toMatchObject({ ok: true, runPolicy: { cleanPodPolicy: "All" } });
  });

  it("round-trips through policyToYaml", () => {
    const parsed = parsePolicyYaml(HYPERPOD_RUN_POLICY);
    if (!parsed.ok) throw new Error("unparsed");
    const again = parsePolicyYaml(policyToYaml(parsed.runPolicy));
    expect(again.ok && again.runPolicy).toEqual(parsed.runPolicy);
  });
});
