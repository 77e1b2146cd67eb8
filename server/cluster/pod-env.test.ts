import { describe, expect, it } from "vitest";
import { FULL_JOB_YAML, mutate } from "@/server/domain/job-spec/job-spec.fixtures";
import { parseJobYaml } from "@/server/domain/job-spec/parse-job";
import { operatorInjectedEnv, withInjectedEnv } from "./pod-env";

const TWO_SPECS = `apiVersion: sagemaker.amazonaws.com/v1
kind: HyperPodPyTorchJob
metadata:
  name: two
spec:
  replicaSpecs:
    - name: a
      replicas: 2
      spares: 3
      template: { spec: { containers: [{ name: main }] } }
    - name: b
      replicas: 3
      template: { spec: { containers: [{ name: main }] } }
`;

function job(yaml: string) {
  const parsed = parseJobYaml(yaml);
  if (!parsed.ok) throw new Error(parsed.errors.map((error) => error.message).join("; "));
  return parsed.job;
}

describe("operatorInjectedEnv", () => {
  it("gives NNODES as the sum of replicas over every replica spec, spares not counted", () => {
    expect(operatorInjectedEnv(job(TWO_SPECS)).NNODES).toBe("5");
  });

  it("gives PET_NPROC_PER_NODE as spec.nprocPerNode, torchrun's default for --nproc-per-node", () => {
    // Absent: the CRD's default, "auto" (a rank per GPU, else per CPU, as torchrun reads it).
    expect(operatorInjectedEnv(job(TWO_SPECS))).toEqual({ NNODES: "5", PET_NPROC_PER_NODE: "auto" });
    for (const value of ["2", "auto", "cpu", "gpu"]) {
      const yaml = TWO_SPECS.replace("spec:\n", `spec:\n  nprocPerNode: "${value}"\n`);
      expect(operatorInjectedEnv(job(yaml)).PET_NPROC_PER_NODE).toBe(value);
    }
  });

  it("adds HYPERPOD_SIGNAL_COORDINATION=distributed for elastic jobs only", () => {
    expect(operatorInjectedEnv(job(FULL_JOB_YAML))).toMatchObject({
      NNODES: "4",
      HYPERPOD_SIGNAL_COORDINATION: "distributed",
    });
    const start = FULL_JOB_YAML.indexOf("  elasticPolicy:");
    expect(start).toBeGreaterThan(0);
    expect(operatorInjectedEnv(job(FULL_JOB_YAML.slice(0, start)))).not.toHaveProperty(
      "HYPERPOD_SIGNAL_COORDINATION",
    );
  });

  it("follows the replica count", () => {
    const three = mutate(FULL_JOB_YAML, "replicas: 4", "replicas: 3");
    expect(operatorInjectedEnv(job(three)).NNODES).toBe("3");
  });
});

describe("withInjectedEnv", () => {
  it("appends the injected variables after the container's own", () => {
    expect(withInjectedEnv([{ name: "LOGLEVEL", value: "INFO" }], { NNODES: "2" })).toEqual([
      { name: "LOGLEVEL", value: "INFO" },
      { name: "NNODES", value: "2" },
    ]);
  });

  it("leaves a variable the container sets itself (value or valueFrom) as it is", () => {
    const own = [
      { name: "NNODES", value: "7" },
      { name: "HYPERPOD_SIGNAL_COORDINATION", valueFrom: { configMapKeyRef: { name: "c", key: "k" } } },
    ];
    expect(withInjectedEnv(own, { NNODES: "2", HYPERPOD_SIGNAL_COORDINATION: "distributed" })).toEqual(own);
  });

  it("creates the list for a container without env", () => {
    expect(withInjectedEnv(undefined, { NNODES: "1" })).toEqual([{ name: "NNODES", value: "1" }]);
  });
});
