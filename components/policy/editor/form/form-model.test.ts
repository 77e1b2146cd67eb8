import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { addRule, readForm, removeRule, writeField, yamlValueOf } from "./form-model";

const POLICY = `# Hang detection for llama-70b
restartPolicy:
  evalPeriodSeconds: 60 # a minute between checks
  maxFullJobRestarts: 2
jobMaxRetryCount: 3
logMonitoringConfiguration:
  # no step line for 30 s after the first one
  - name: hang
    logPattern: ".*step (\\\\d+).*"
    expectedRecurringFrequencyInSeconds: 30
  - name: nan
    logPattern: 'loss: nan'
    faultOnMatch: true
`;

describe("readForm", () => {
  it("reads the common fields as the inputs show them", () => {
    const read = readForm(POLICY);
    expect(read.ok).toBe(true);
    if (!read.ok) return;
    expect(read.values.restartPolicy).toMatchObject({
      evalPeriodSeconds: "60",
      maxFullJobRestarts: "2",
      scaleUpSnoozeTimeInSeconds: "",
    });
    expect(read.values.jobMaxRetryCount).toBe("3");
    expect(read.values.cleanPodPolicy).toBe("");
    expect(read.values.rules.map((rule) => rule.name)).toEqual(["hang", "nan"]);
    expect(read.values.rules[0]?.logPattern).toBe(".*step (\\d+).*");
    expect(read.values.rules[1]?.faultOnMatch).toBe("true");
  });

  it("reads a whole job at its spec.runPolicy", () => {
    const job =
      "apiVersion: sagemaker.amazonaws.com/v1\nkind: HyperPodPyTorchJob\nspec:\n  runPolicy:\n    jobMaxRetryCount: 5\n";
    const read = readForm(job);
    expect(read.ok && read.values.jobMaxRetryCount).toBe("5");
    expect(writeField(job, ["cleanPodPolicy"], "None")).toContain(
      "  runPolicy:\n    jobMaxRetryCount: 5\n    cleanPodPolicy: None\n",
    );
    const noPolicy = "kind: HyperPodPyTorchJob\nspec:\n  nprocPerNode: 8\n";
    expect(parse(writeField(noPolicy, ["jobMaxRetryCount"], "2")).spec).toEqual({
      nprocPerNode: 8,
      runPolicy: { jobMaxRetryCount: 2 },
    });
  });

  it("refuses YAML it cannot edit safely, saying why", () => {
    expect(readForm("restartPolicy: [\n")).toMatchObject({ ok: false });
    expect(readForm("logMonitoringConfiguration: hang\n")).toEqual({
      ok: false,
      reason: "logMonitoringConfiguration is not a list",
    });
    expect(readForm("- a\n")).toEqual({ ok: false, reason: "the policy is not a mapping" });
    expect(readForm("")).toMatchObject({ ok: true });
  });
});

describe("writeField", () => {
  it("changes one value and keeps every comment and the key order", () => {
    const next = writeField(POLICY, ["restartPolicy", "evalPeriodSeconds"], "120");
    expect(next).toBe(POLICY.replace("evalPeriodSeconds: 60", "evalPeriodSeconds: 120"));
  });

  it("adds a missing field at the end of its mapping, creating the mapping when needed", () => {
    const next = writeField(POLICY, ["logMonitoringConfiguration", 0, "operator"], "gt");
    expect(parse(next).logMonitoringConfiguration[0]).toMatchObject({ name: "hang", operator: "gt" });
    expect(next).toContain("# no step line for 30 s after the first one");
    const created = writeField("jobMaxRetryCount: 1\n", ["restartPolicy", "evalPeriodSeconds"], "30");
    expect(parse(created)).toEqual({ jobMaxRetryCount: 1, restartPolicy: { evalPeriodSeconds: 30 } });
  });

  it("removes a field whose input is emptied, and a mapping left empty", () => {
    const next = writeField(POLICY, ["jobMaxRetryCount"], "");
    expect(parse(next)).not.toHaveProperty("jobMaxRetryCount");
    const emptied = writeField(
      "restartPolicy:\n  evalPeriodSeconds: 30\n",
      ["restartPolicy", "evalPeriodSeconds"],
      " ",
    );
    expect(parse(emptied) ?? {}).toEqual({});
  });

  it("writes numbers as numbers, booleans as booleans, anything else as typed for the schema to judge", () => {
    expect(yamlValueOf(" 30 ", "number")).toBe(30);
    expect(yamlValueOf("1.5", "number")).toBe(1.5);
    expect(yamlValueOf("30s", "number")).toBe("30s");
    expect(yamlValueOf("false", "boolean")).toBe(false);
    expect(yamlValueOf(" .*step.* ", "text")).toBe(" .*step.* ");
    const next = writeField(POLICY, ["logMonitoringConfiguration", 1, "faultOnMatch"], "false");
    expect(parse(next).logMonitoringConfiguration[1].faultOnMatch).toBe(false);
  });

  it("quotes a pattern that plain YAML would misread", () => {
    for (const pattern of ["*Error*", "loss: nan", "# step", "[x]", "true", "30"]) {
      const next = writeField(POLICY, ["logMonitoringConfiguration", 0, "logPattern"], pattern);
      expect(parse(next).logMonitoringConfiguration[0].logPattern).toBe(pattern);
    }
  });
});

describe("addRule and removeRule", () => {
  it("appends a rule, creating logMonitoringConfiguration when missing", () => {
    const added = addRule(POLICY, { name: "oom", logPattern: "CUDA out of memory" });
    expect(parse(added).logMonitoringConfiguration.map((rule: { name: string }) => rule.name)).toEqual([
      "hang",
      "nan",
      "oom",
    ]);
    expect(added.startsWith("# Hang detection for llama-70b\n")).toBe(true);
    const first = addRule("jobMaxRetryCount: 1\n", { name: "hang", logPattern: ".*" });
    expect(parse(first)).toEqual({
      jobMaxRetryCount: 1,
      logMonitoringConfiguration: [{ name: "hang", logPattern: ".*" }],
    });
  });

  it("removes one rule, and the list once empty", () => {
    const removed = removeRule(POLICY, 0);
    expect(parse(removed).logMonitoringConfiguration).toEqual([
      { name: "nan", logPattern: "loss: nan", faultOnMatch: true },
    ]);
    expect(parse(removeRule(removed, 0))).not.toHaveProperty("logMonitoringConfiguration");
  });

  it("leaves YAML with a syntax error unchanged", () => {
    expect(writeField("a: [\n", ["jobMaxRetryCount"], "1")).toBe("a: [\n");
  });
});
