import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import {
  acceptsAfter,
  FULL_JOB_YAML,
  MINIMAL_JOB_YAML,
  mutate,
  objectErrorsAfter,
} from "./job-spec.fixtures";
import { JOB_CRD_NAME, nprocPerNodeSchema } from "./job-spec.schema";
import { parseJobObject } from "./parse-job";

const CONTAINERS = "          containers:\n            - name: main\n";

describe("identity and metadata", () => {
  it("exposes the CRD name", () => {
    expect(JOB_CRD_NAME).toBe("hyperpodpytorchjobs.sagemaker.amazonaws.com");
  });

  it("rejects another apiVersion or kind", () => {
    expect(objectErrorsAfter("sagemaker.amazonaws.com/v1", "kubeflow.org/v1")).toEqual([
      { path: "apiVersion", message: 'expected "sagemaker.amazonaws.com/v1", got "kubeflow.org/v1"' },
    ]);
    expect(objectErrorsAfter("kind: HyperPodPyTorchJob", "kind: PyTorchJob")).toEqual([
      { path: "kind", message: 'expected "HyperPodPyTorchJob", got "PyTorchJob"' },
    ]);
  });

  it("requires the job name to be a DNS-1123 label of at most 63 characters", () => {
    expect(objectErrorsAfter("name: llama-pretrain", "name: Llama.Pretrain")[0]?.path).toBe("metadata.name");
    expect(objectErrorsAfter("name: llama-pretrain", `name: ${"a".repeat(64)}`)[0]?.message).toMatch(
      /^expected at most 63 characters, got "a{40}…"$/,
    );
    expect(acceptsAfter("name: llama-pretrain", `name: ${"a".repeat(63)}`)).toBe(true);
    expect(objectErrorsAfter("namespace: team-a", "namespace: Team_A")[0]?.path).toBe("metadata.namespace");
  });

  it("tolerates and keeps server-set metadata, but wants string label values", () => {
    const result = parseJobObject(
      parseYaml(mutate(MINIMAL_JOB_YAML, "  name: tiny\n", "  name: tiny\n  uid: abc\n  generation: 3\n")),
    );
    expect(result.ok && result.job.metadata).toEqual({ name: "tiny", uid: "abc", generation: 3 });
    expect(objectErrorsAfter("queue-name: hyperpod-ns-team-a-localqueue", "queue-name: 7")).toEqual([
      {
        path: 'metadata.labels["kueue.x-k8s.io/queue-name"]',
        message: 'expected a string (quote numbers and booleans, e.g. "true"), got 7',
      },
    ]);
  });
});

describe("spec", () => {
  it.each(["auto", "cpu", "gpu", "1", "16"])("accepts nprocPerNode %s", (value) => {
    expect(nprocPerNodeSchema.safeParse(value).success).toBe(true);
  });

  it.each(["0", "08", "eight", "8.5", "GPU", ""])("rejects nprocPerNode %j", (value) => {
    expect(nprocPerNodeSchema.safeParse(value).success).toBe(false);
  });

  it("rejects unknown spec keys with a suggestion", () => {
    expect(objectErrorsAfter("  replicaSpecs:", "  replicaSpec:")).toEqual([
      { path: "spec.replicaSpecs", message: 'missing required field "replicaSpecs"' },
      { path: "spec.replicaSpec", message: 'unknown field "replicaSpec"; did you mean "replicaSpecs"?' },
    ]);
  });

  it("rejects unknown top-level keys; keeps unknown log-rule keys (hyperpodrun ignores them)", () => {
    expect(objectErrorsAfter("\nspec:\n", "\nspecs: {}\nspec:\n")).toEqual([
      { path: "specs", message: 'unknown field "specs"; did you mean "spec"?' },
    ]);
    expect(objectErrorsAfter("faultOnMatch: true", "faultOnMatch: true\n        retries: 2")).toEqual([]);
  });
});

describe("replicaSpecs", () => {
  it("passes the pod template through unchanged", () => {
    const result = parseJobObject(parseYaml(FULL_JOB_YAML));
    const template = result.ok ? result.job.spec.replicaSpecs[0]?.template : undefined;
    expect(template?.spec.nodeSelector).toEqual({ "node.kubernetes.io/instance-type": "ml.p5.48xlarge" });
    expect(template?.spec.containers[0]?.ports).toEqual([{ containerPort: 8080 }]);
  });

  it("requires at least one named container", () => {
    expect(objectErrorsAfter(CONTAINERS, "          containers: []\n", MINIMAL_JOB_YAML)).toEqual([
      {
        path: "spec.replicaSpecs[0].template.spec.containers",
        message: "expected at least one container, got a list",
      },
    ]);
    expect(objectErrorsAfter("- name: main", "- image: x", MINIMAL_JOB_YAML)).toEqual([
      {
        path: "spec.replicaSpecs[0].template.spec.containers[0].name",
        message: 'missing required field "name"',
      },
    ]);
    expect(objectErrorsAfter(CONTAINERS, "          hostNetwork: true\n", MINIMAL_JOB_YAML)[0]?.path).toBe(
      "spec.replicaSpecs[0].template.spec.containers",
    );
  });

  it("requires a non-empty list with unique, DNS-safe names", () => {
    const twoSpecs = mutate(
      FULL_JOB_YAML,
      "  runPolicy:\n",
      `    - name: workers\n      template: {spec: {containers: [{name: c}]}}\n  runPolicy:\n`,
    );
    expect(parseJobObject(parseYaml(twoSpecs))).toMatchObject({
      ok: false,
      errors: [
        {
          path: "spec.replicaSpecs[1].name",
          message: 'duplicate replica spec name "workers" (already used by replica spec 0)',
        },
      ],
    });
    expect(objectErrorsAfter("- name: workers", "- name: Workers")[0]?.path).toBe(
      "spec.replicaSpecs[0].name",
    );
    expect(
      objectErrorsAfter(
        "  replicaSpecs:\n    - name: pods",
        "  replicaSpecs: []\n  x:\n    - name: pods",
        MINIMAL_JOB_YAML,
      ),
    ).toContainEqual({
      path: "spec.replicaSpecs",
      message: "expected at least one replica spec, got a list",
    });
  });

  it("requires maxReplicas to be at least replicas", () => {
    expect(objectErrorsAfter("maxReplicas: 8\n      spares", "maxReplicas: 3\n      spares")).toEqual([
      { path: "spec.replicaSpecs[0].maxReplicas", message: "maxReplicas (3) must be at least replicas (4)" },
    ]);
  });
});

describe("runPolicy", () => {
  it("accepts ttlSecondsAfterFinished -1 and rejects -2", () => {
    expect(acceptsAfter("ttlSecondsAfterFinished: 3600", "ttlSecondsAfterFinished: -1")).toBe(true);
    expect(
      objectErrorsAfter("ttlSecondsAfterFinished: 3600", "ttlSecondsAfterFinished: -2")[0]?.message,
    ).toBe("expected -1 (keep forever) or a non-negative integer, got -2");
  });

  it.each([
    ["activeDeadlineSeconds: 864000", "activeDeadlineSeconds: 0", "expected a positive integer, got 0"],
    ["startupDeadlineSeconds: 1800", "startupDeadlineSeconds: 1.5", "expected a positive integer, got 1.5"],
    ["suspend: false", 'suspend: "no"', 'expected true or false, got "no"'],
    [
      "cleanPodPolicy: OnlyComplete",
      "cleanPodPolicy: all",
      'expected one of All, OnlyComplete, None, got "all"',
    ],
    ["evalPeriodSeconds: 21600", 'evalPeriodSeconds: "21600"', 'expected a positive integer, got "21600"'],
    ["workloadMode: Deployment", "workloadMode: ''", 'expected a non-empty string, got ""'],
  ])("rejects %s → %s", (from, to, message) => {
    expect(objectErrorsAfter(from, to).map((error) => error.message)).toEqual([message]);
  });
});
