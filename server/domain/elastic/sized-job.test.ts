import { describe, expect, it } from "vitest";
import { operatorInjectedEnv } from "@/server/cluster/pod-env";
import { parseJobYaml } from "@/server/domain/job-spec/parse-job";
import { initialSize, jobAtMinimum, jobAtSize, sizesOf } from "./sized-job";
import { baseWorkload, stepWorkload } from "./step-workload";

const PARTIAL = `apiVersion: sagemaker.amazonaws.com/v1
kind: HyperPodPyTorchJob
metadata: { name: elastic-partial }
spec:
  elasticPolicy: { minReplicas: 2, maxReplicas: 8, replicaIncrementStep: 2 }
  replicaSpecs:
    - name: base
      replicas: 2
      template: { spec: { priorityClassName: high-priority, containers: [{ name: main }] } }
    - name: elastic
      replicas: 0
      maxReplicas: 6
      template: { spec: { priorityClassName: low-priority, containers: [{ name: main }] } }
`;

function parse(yaml: string) {
  const result = parseJobYaml(yaml);
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.job;
}

describe("jobAtSize", () => {
  it("spreads the size over base then elastic", () => {
    const job = parse(PARTIAL);
    expect(sizesOf(job)).toEqual([2, 4, 6, 8]);
    expect(jobAtSize(job, 6).spec.replicaSpecs.map((s) => [s.name, s.replicas])).toEqual([
      ["base", 2],
      ["elastic", 4],
    ]);
    expect(jobAtMinimum(job).spec.replicaSpecs.map((s) => s.replicas)).toEqual([2, 0]);
    // The job itself is not changed.
    expect(job.spec.replicaSpecs.map((s) => s.replicas)).toEqual([2, 0]);
  });
  it("leaves a job without elasticPolicy as it is", () => {
    const job = parse(
      PARTIAL.replace("  elasticPolicy: { minReplicas: 2, maxReplicas: 8, replicaIncrementStep: 2 }\n", ""),
    );
    expect(jobAtSize(job, 6)).toBe(job);
    expect(sizesOf(job)).toEqual([2]);
  });
});

describe("partial preemption: base and step workloads", () => {
  it("the base at minReplicas with the base spec's priority; steps with the elastic spec's", () => {
    const job = parse(PARTIAL);
    const base = baseWorkload(job, { team: "a", createdAt: 0 });
    expect(base.priorityClass).toBe("high");
    const step = stepWorkload(job, { from: 2, to: 4, team: "a", createdAt: 0 });
    expect(step).toMatchObject({ key: "default/elastic-partial#4", priorityClass: "low" });
  });
});

describe("NNODES of a pod made at a size", () => {
  it("is that size (what /start's nnodes says at it)", () => {
    const job = parse(PARTIAL);
    for (const size of sizesOf(job))
      expect(operatorInjectedEnv(jobAtSize(job, size)).NNODES).toBe(String(size));
  });
});

describe("initialSize", () => {
  it("is the replica specs' replicas (AWS: the initial count), else the largest allowed size below it", () => {
    expect(initialSize(parse(PARTIAL))).toBe(2);
    expect(initialSize(parse(PARTIAL.replace("replicas: 0\n", "replicas: 4\n")))).toBe(6);
    // 5 is no allowed size (2, 4, 6, 8): the job starts at 4.
    expect(initialSize(parse(PARTIAL.replace("replicas: 0\n", "replicas: 3\n")))).toBe(4);
  });
});
