import type { V1Node, V1Pod } from "@kubernetes/client-node";
import { describe, expect, it, vi } from "vitest";
import { type ClusterJob, nodeReplaceAt } from "@/server/cluster/types";
import { parseJobYaml } from "@/server/domain/job-spec/parse-job";
import { DEFAULT_NODE_SIGNALS } from "@/server/domain/node-health/default-signals";
import { buildPod, jobUpdatePatch, replacementMergePatch, toClusterNode, toClusterPod } from "./objects";

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
    object: parsed.job,
    status: {},
    deleting: false,
  };
}

describe("buildPod: the environment HyperPod's operator injects", () => {
  const pod = buildPod({ job: clusterJob(YAML), replicaSpec: "pods", index: 1, node: "node-a" });
  const envOf = (name: string) => pod.spec?.containers.find((container) => container.name === name)?.env;

  it("adds NNODES (the job's node count) and PET_NPROC_PER_NODE (nprocPerNode) after the container's own", () => {
    expect(envOf("trainer")).toEqual([
      { name: "LOGLEVEL", value: "INFO" },
      { name: "NNODES", value: "3" },
      { name: "PET_NPROC_PER_NODE", value: "2" },
    ]);
  });

  it("keeps a container's own NNODES", () => {
    expect(envOf("sidecar")).toEqual([
      { name: "NNODES", value: "9" },
      { name: "PET_NPROC_PER_NODE", value: "2" },
    ]);
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
    const containers = job.object.spec.replicaSpecs[0]?.template.spec.containers;
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

const withTemplateSpec = (lines: string) =>
  YAML.replace("      template:\n        spec:\n", `      template:\n        spec:\n${lines}`);

describe("buildPod: nothing of the operator's reaches the pod", () => {
  const build = (yaml: string) =>
    buildPod({ job: clusterJob(yaml), replicaSpec: "pods", index: 0, node: "n" });

  it("mounts no service-account token unless the job asks", () => {
    expect(build(YAML).spec?.automountServiceAccountToken).toBe(false);
  });

  it("keeps the template's own automountServiceAccountToken, true or false", () => {
    const on = build(withTemplateSpec("          automountServiceAccountToken: true\n"));
    expect(on.spec?.automountServiceAccountToken).toBe(true);
    const off = build(withTemplateSpec("          automountServiceAccountToken: false\n"));
    expect(off.spec?.automountServiceAccountToken).toBe(false);
  });

  it("leaves the mount to the service account a job names (Kubernetes' default for it)", () => {
    const pod = build(withTemplateSpec("          serviceAccountName: trainer\n"));
    expect(pod.spec?.serviceAccountName).toBe("trainer");
    expect(pod.spec?.automountServiceAccountToken).toBeUndefined();
  });

  it("copies none of the operator's environment into a container", () => {
    vi.stubEnv("DATABASE_URL", "postgres://rebound:pod-secret-password@127.0.0.1/rebound");
    vi.stubEnv("REBOUND_SESSION_SECRET", "pod-secret-session");
    try {
      const pod = build(YAML);
      expect(JSON.stringify(pod)).not.toMatch(/pod-secret|DATABASE_URL|REBOUND_/);
      const names = pod.spec?.containers.map((container) => ({
        name: container.name,
        env: (container.env ?? []).map((item) => item.name),
        envFrom: container.envFrom,
      }));
      expect(names).toEqual([
        { name: "trainer", env: ["LOGLEVEL", "NNODES", "PET_NPROC_PER_NODE"], envFrom: undefined },
        { name: "sidecar", env: ["NNODES", "PET_NPROC_PER_NODE"], envFrom: undefined },
      ]);
      expect(pod.spec?.volumes).toBeUndefined();
    } finally {
      vi.unstubAllEnvs();
    }
  });
});

describe("the merge patch of a runPolicy update", () => {
  it("removes at every depth what the new runPolicy drops, replacing lists whole", () => {
    const from = {
      jobMaxRetryCount: 100,
      restartPolicy: { evalPeriodSeconds: 3600, maxFullJobRestarts: 5 },
      logMonitoringConfiguration: [{ name: "A" }, { name: "B" }],
      suspend: false,
    };
    const to = {
      restartPolicy: { evalPeriodSeconds: 600 },
      logMonitoringConfiguration: [{ name: "C" }],
      suspend: false,
    };
    expect(replacementMergePatch(from, to)).toEqual({
      jobMaxRetryCount: null,
      restartPolicy: { evalPeriodSeconds: 600, maxFullJobRestarts: null },
      logMonitoringConfiguration: [{ name: "C" }],
      suspend: false,
    });
  });

  it("carries the resourceVersion just read and the annotations; spec only with a runPolicy", () => {
    const object = { metadata: { resourceVersion: "42" }, spec: { runPolicy: { jobMaxRetryCount: 1 } } };
    expect(
      jobUpdatePatch(object, {
        annotations: { "rebound.dev/shadow-log-monitoring": null },
        expectedVersion: null,
      }),
    ).toEqual({
      metadata: { resourceVersion: "42", annotations: { "rebound.dev/shadow-log-monitoring": null } },
    });
    expect(
      jobUpdatePatch(object, {
        runPolicy: { cleanPodPolicy: "All" },
        annotations: { "rebound.dev/policy": "t/p v1" },
        expectedVersion: "40",
      }),
    ).toEqual({
      metadata: { resourceVersion: "42", annotations: { "rebound.dev/policy": "t/p v1" } },
      spec: { runPolicy: { jobMaxRetryCount: null, cleanPodPolicy: "All" } },
    });
  });
});

describe("toClusterNode: the node-signal verdict from a Node object", () => {
  const judged = { changedAt: 5, now: 7, table: DEFAULT_NODE_SIGNALS };
  const node = (change: {
    spec?: V1Node["spec"];
    status?: V1Node["status"];
    labels?: Record<string, string>;
  }) =>
    toClusterNode(
      {
        metadata: { name: "n1", labels: change.labels ?? {} },
        spec: change.spec ?? {},
        status: {
          conditions: [{ type: "Ready", status: "True" }],
          capacity: { "nvidia.com/gpu": "8" },
          allocatable: { "nvidia.com/gpu": "8" },
          ...change.status,
        },
      },
      judged,
    );

  it("reads conditions, taints, the cordon and allocatable GPUs", () => {
    expect(node({}).verdict?.action).toBe("none");
    const faulty = node({
      status: {
        conditions: [
          { type: "Ready", status: "True" },
          { type: "KernelDeadlock", status: "True", reason: "DockerHung", message: "task docker blocked" },
        ],
      },
    });
    expect(faulty.verdict).toMatchObject({
      action: "replace-now",
      reason: "node-problem-detector: KernelDeadlock — task docker blocked",
      replaceAt: 7,
    });
    const tainted = node({
      spec: { taints: [{ key: "node.kubernetes.io/unreachable", effect: "NoExecute" }] },
    });
    expect(tainted.verdict?.action).toBe("replace-now");
    const dropped = node({ status: { allocatable: { "nvidia.com/gpu": "7" } } });
    expect([dropped.gpus, dropped.verdict?.action]).toEqual([7, "replace-after-grace"]);
  });

  it("shows a cordon as Unschedulable, as before, but only to keep new pods away", () => {
    const cordoned = node({ spec: { unschedulable: true } });
    expect(cordoned.health).toBe("Unschedulable");
    expect(cordoned.verdict).toMatchObject({ action: "avoid", replaceAt: null });
    expect(nodeReplaceAt(cordoned)).toBeNull();
  });

  it("keeps HyperPod's label: anything but Schedulable replaces the pods from the change", () => {
    const labelled = node({
      labels: { "sagemaker.amazonaws.com/node-health-status": "UnschedulablePendingReboot" },
    });
    expect(labelled.health).toBe("UnschedulablePendingReboot");
    expect(nodeReplaceAt(labelled)).toBe(7);
  });
});
