import { describe, expect, it } from "vitest";
import { parse as parseYaml, stringify } from "yaml";
import { errorsOf, FULL_JOB_YAML, lineOf, MINIMAL_JOB_YAML, mutate } from "./job-spec.fixtures";
import { formatJobSpecErrors } from "./job-spec-errors";
import { MAX_JOB_YAML_BYTES, parseJobObject, parseJobYaml } from "./parse-job";

const RULES = "spec.runPolicy.logMonitoringConfiguration";

describe("parseJobYaml: valid manifests", () => {
  it("accepts the full example with all four kinds of log rule", () => {
    const result = parseJobYaml(FULL_JOB_YAML);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const rules = result.job.spec.runPolicy.logMonitoringConfiguration ?? [];
    expect(rules.map((rule) => rule.name)).toEqual([
      "TrainingStarted",
      "StepHang",
      "SlowThroughput",
      "CudaOutOfMemory",
    ]);
    expect(rules[1]?.logPattern).toBe(String.raw`.*\[step (\d+)\].*`);
    expect(rules[3]?.faultOnMatch).toBe(true);
  });

  it("round-trips every field unchanged (YAML → job → YAML → job, and through JSON)", () => {
    const result = parseJobYaml(FULL_JOB_YAML);
    if (!result.ok) throw new Error(formatJobSpecErrors(result.errors));
    expect(result.job).toEqual(parseYaml(FULL_JOB_YAML));
    const again = parseJobYaml(stringify(result.job));
    expect(again).toEqual({ ok: true, job: result.job, warnings: [] });
    expect(parseJobObject(JSON.parse(JSON.stringify(result.job)))).toEqual({
      ok: true,
      job: result.job,
      warnings: [],
    });
  });

  it("applies documented defaults and accepts the HyperPodPytorchJob spelling", () => {
    const result = parseJobYaml(MINIMAL_JOB_YAML);
    if (!result.ok) throw new Error(formatJobSpecErrors(result.errors));
    expect(result.job.kind).toBe("HyperPodPytorchJob");
    expect(result.job.spec.nprocPerNode).toBe("auto");
    expect(result.job.spec.runPolicy).toEqual({ cleanPodPolicy: "All" });
    expect(result.job.spec.replicaSpecs[0]).toMatchObject({ replicas: 0, spares: 0 });
  });

  it("ignores a leading document marker and a trailing empty document", () => {
    expect(parseJobYaml(`---\n${MINIMAL_JOB_YAML}---\n`).ok).toBe(true);
  });
});

describe("parseJobYaml: input that is not one YAML document", () => {
  it("reports a YAML syntax error with line and column", () => {
    const yaml = mutate(FULL_JOB_YAML, "command: [hyperpodrun, --tee=3", "command: [hyperpodrun, {tee: 3");
    const [error] = errorsOf(yaml);
    expect(error?.path).toBe("");
    expect(error?.message).toMatch(/^YAML syntax error: /);
    expect(error?.line).toBeGreaterThanOrEqual(lineOf(yaml, "{tee: 3"));
    expect(error?.column).toBeTypeOf("number");
  });

  it("reports the exact position of a nested compact mapping, a tab and a duplicate key", () => {
    expect(errorsOf("apiVersion: v1\nkind: a: b\n")[0]).toMatchObject({ line: 2, column: 7 });
    expect(errorsOf("apiVersion: v1\n\tkind: x\n")[0]).toMatchObject({
      line: 2,
      column: 1,
      message: "YAML syntax error: Tabs are not allowed as indentation",
    });
    const duplicate = errorsOf("apiVersion: a\nkind: b\nkind: c\n");
    expect(duplicate).toEqual([
      { path: "", line: 3, column: 1, message: "YAML syntax error: Map keys must be unique" },
    ]);
  });

  it("rejects several documents, pointing at the second", () => {
    const yaml = `${MINIMAL_JOB_YAML}---\n${MINIMAL_JOB_YAML}`;
    const errors = errorsOf(yaml);
    expect(errors).toHaveLength(1);
    expect(errors[0]?.message).toMatch(/more than one YAML document/);
    expect(errors[0]?.line).toBe(lineOf(yaml, "---"));
  });

  it("rejects empty input and non-object documents", () => {
    expect(errorsOf("# nothing here\n")[0]?.message).toMatch(/empty/);
    expect(errorsOf("- a\n- b\n")).toEqual([
      { path: "", line: 1, column: 1, message: "expected object, got a list" },
    ]);
  });

  it("rejects input over the size cap before parsing", () => {
    const padded = `${MINIMAL_JOB_YAML}#${"x".repeat(MAX_JOB_YAML_BYTES)}\n`;
    expect(errorsOf(padded)[0]?.message).toMatch(/limit is 1048576 bytes/);
  });

  it("refuses alias bombs", () => {
    const bomb = ["a: &a [x, x, x, x, x, x, x, x, x, x]", "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]"];
    bomb.push(
      "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]",
      "d: [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]",
    );
    expect(errorsOf(`${bomb.join("\n")}\n`)[0]?.message).toMatch(/^cannot read the YAML/);
  });

  /** The minimal job with one anchored annotation of `bytes` bytes repeated by `aliases` aliases in args. */
  const aliased = (bytes: number, aliases: number) =>
    `${mutate(
      MINIMAL_JOB_YAML,
      "  name: tiny\n",
      `  name: tiny\n  annotations:\n    big: &big ${"x".repeat(bytes)}\n`,
    )}              args: [${Array.from({ length: aliases }, () => "*big").join(", ")}]\n`;

  it("refuses aliases that expand the manifest past 1 MiB, at the first alias", () => {
    const yaml = aliased(11_000, 99);
    expect(yaml.length).toBeLessThan(20_000);
    expect(errorsOf(yaml)).toEqual([
      {
        path: "",
        line: lineOf(yaml, "args: [*"),
        column: 22,
        message: expect.stringMatching(/aliases \(\*name\) expand it to more than 1048576 bytes/),
      },
    ]);
  });

  it("accepts aliases that stay within 1 MiB expanded", () => {
    const result = parseJobYaml(aliased(10_000, 99));
    expect(result.ok).toBe(true);
    if (result.ok)
      expect(result.job.spec.replicaSpecs[0]?.template.spec.containers[0]?.args).toHaveLength(99);
  });
});

describe("parseJobObject", () => {
  it("reports the same paths without positions", () => {
    const job = parseYaml(mutate(FULL_JOB_YAML, "operator: lteq", "operator: gte"));
    expect(parseJobObject(job)).toEqual({
      ok: false,
      errors: [
        { path: `${RULES}[2].operator`, message: 'expected one of gt, lt, eq, gteq, lteq, got "gte"' },
      ],
    });
  });

  it("rejects values that are not objects", () => {
    expect(parseJobObject(undefined)).toEqual({
      ok: false,
      errors: [{ path: "", message: "expected object, got undefined" }],
    });
    expect(parseJobObject("job")).toEqual({
      ok: false,
      errors: [{ path: "", message: 'expected object, got "job"' }],
    });
  });

  it("formats errors without a line", () => {
    const result = parseJobObject({ apiVersion: "v1" });
    if (result.ok) throw new Error("expected rejection");
    expect(formatJobSpecErrors(result.errors).split("\n")).toEqual([
      'apiVersion: expected "sagemaker.amazonaws.com/v1", got "v1"',
      'kind: missing required field "kind"',
      'metadata: missing required field "metadata"',
      'spec: missing required field "spec"',
    ]);
  });
});
