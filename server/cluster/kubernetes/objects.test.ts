import type { V1Pod } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import type { ClusterJob } from "@/server/cluster/types";
import { parseJobYaml } from "@/server/domain/job-spec/parse-job";
import { buildPod, toClusterPod } from "./objects";

const YAML = `apiVersion: sagemaker.amazonaws.com/v1
kind: HyperPodPyTorchJob
metadata:
  name: demo
  namespace: team-a
spec:
  nprocPerNode: "2"
  replicaSpecs:
    - name: pods
      replicas: 3
      template:
        spec:
          containers:
            - name: trainer
              image: train:1
              command: [hyperpodrun, --nnodes=3, --nproc_per_node=2, train.py]
              env:
                - { name: LOGLEVEL, value: INFO }
            - name: sidecar
              image: side:1
              env:
                - { name: NNODES, value: "9" }
`;

function clusterJob(yaml: string): ClusterJob {
  const parsed = parseJobYaml(yaml);
  if (!parsed.ok) throw new Error(parsed.errors.map((error) => error.message).join("; "));
  return {
    ref: { namespace: "team-a", name: "demo" },
    uid: "uid-1",
    generation: 1,
    createdAt: new Date(0),
    job: parsed.job,
    status: {},
    deleting: false,
  };
}

describe("buildPod: the environment HyperPod's operator injects", () => {
  const pod = buildPod({ job: clusterJob(YAML), replicaSpec: "pods", index: 1, node: "node-a" });
  const envOf = (name: string) => pod.spec?.containers.find((container) => container.name === name)?.env;

  it("adds NNODES (the job's node count) after the container's own variables", () => {
    expect(envOf("trainer")).toEqual([
      { name: "LOGLEVEL", value: "INFO" },
      { name: "NNODES", value: "3" },
    ]);
  });

  it("keeps a container's own NNODES", () => {
    expect(envOf("sidecar")).toEqual([{ name: "NNODES", value: "9" }]);
  });

  it("keeps the rest of the container and pod as the template has them", () => {
    const trainer = pod.spec?.containers[0];
    expect(trainer?.command).toEqual(["hyperpodrun", "--nnodes=3", "--nproc_per_node=2", "train.py"]);
    expect(trainer?.image).toBe("train:1");
    expect(pod.spec?.nodeName).toBe("node-a");
    expect(pod.spec?.restartPolicy).toBe("Never");
  });

  it("leaves the job's template unchanged", () => {
    const job = clusterJob(YAML);
    buildPod({ job, replicaSpec: "pods", index: 0, node: "node-a" });
    const containers = job.job.spec.replicaSpecs[0]?.template.spec.containers;
    expect(containers?.[0]?.env).toEqual([{ name: "LOGLEVEL", value: "INFO" }]);
  });
});

describe("toClusterPod: the pod's own address", () => {
  const base: V1Pod = {
    metadata: { name: "demo-pods-0", namespace: "team-a", labels: { HPJob: "demo" } },
    status: { phase: "Running" },
  };

  it("is the pod IP once it has one", () => {
    const pod = toClusterPod({ ...base, status: { phase: "Running", podIP: "10.1.2.3" } });
    expect(pod.ip).toBe("10.1.2.3");
    expect(pod.agentUrl).toBe("http://10.1.2.3:8080");
  });

  it("is the pod IP even when an annotation says where its agent listens", () => {
    const annotated: V1Pod = {
      ...base,
      metadata: { ...base.metadata, annotations: { "rebound.dev/agent-url": "http://127.0.0.1:4000" } },
      status: { phase: "Running", podIP: "10.1.2.4" },
    };
    expect(toClusterPod(annotated).ip).toBe("10.1.2.4");
  });

  it("is null before the pod has an IP", () => {
    expect(toClusterPod(base).ip).toBeNull();
  });
});
