import { describe, expect, it } from "vitest";
import type { ClusterJob } from "@/server/cluster/types";
import { parseJobYaml } from "@/server/domain/job-spec/parse-job";
import { AGENT_CREDENTIAL_ENV } from "../agent-credential";
import { buildPod } from "./objects";

/** The pod's agent credential reaches the containers that run our agent, and only those. */
const YAML = `apiVersion: sagemaker.amazonaws.com/v1
kind: HyperPodPyTorchJob
metadata:
  name: demo
  namespace: team-a
spec:
  nprocPerNode: "1"
  replicaSpecs:
    - name: pods
      replicas: 1
      template:
        spec:
          containers:
            - name: trainer
              image: train:1
              command: [npx, rebound-agent, --nproc-per-node, "1", train.py]
              env:
                - { name: ${AGENT_CREDENTIAL_ENV}, value: chosen-by-the-job }
                - { name: LOGLEVEL, value: INFO }
            - name: other
              image: train:1
              command: [hyperpodrun, --nproc_per_node=1, train.py]
`;

function clusterJob(): ClusterJob {
  const parsed = parseJobYaml(YAML);
  if (!parsed.ok) throw new Error(parsed.errors.map((error) => error.message).join("; "));
  return {
    ref: { namespace: "team-a", name: "demo" },
    uid: "uid-1",
    generation: 1,
    createdAt: new Date(0),
    object: parsed.job,
    status: {},
    deleting: false,
  };
}

const envOf = (pod: ReturnType<typeof buildPod>, name: string) =>
  pod.spec?.containers.find((container) => container.name === name)?.env;

describe("buildPod: the agent credential", () => {
  it("is the last variable of our agent's container, replacing one the job set", () => {
    const pod = buildPod({
      job: clusterJob(),
      replicaSpec: "pods",
      index: 0,
      node: "n",
      agentCredential: "c-1",
    });
    expect(envOf(pod, "trainer")).toEqual([
      { name: "LOGLEVEL", value: "INFO" },
      { name: "NNODES", value: "1" },
      { name: "PET_NPROC_PER_NODE", value: "1" },
      { name: AGENT_CREDENTIAL_ENV, value: "c-1" },
    ]);
  });

  it("is not given to a container that does not run our agent (hyperpodrun has no check)", () => {
    const pod = buildPod({
      job: clusterJob(),
      replicaSpec: "pods",
      index: 0,
      node: "n",
      agentCredential: "c-1",
    });
    expect(envOf(pod, "other")).toEqual([
      { name: "NNODES", value: "1" },
      { name: "PET_NPROC_PER_NODE", value: "1" },
    ]);
  });

  it("is absent without one: the job's env as it wrote it", () => {
    const pod = buildPod({ job: clusterJob(), replicaSpec: "pods", index: 0, node: "n" });
    expect(envOf(pod, "trainer")).toEqual([
      { name: AGENT_CREDENTIAL_ENV, value: "chosen-by-the-job" },
      { name: "LOGLEVEL", value: "INFO" },
      { name: "NNODES", value: "1" },
      { name: "PET_NPROC_PER_NODE", value: "1" },
    ]);
  });
});
