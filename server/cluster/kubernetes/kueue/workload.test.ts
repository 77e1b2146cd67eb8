import { describe, expect, it } from "vitest";
import type { ClusterJob } from "@/server/cluster/types";
import { parseJobObject } from "@/server/domain/job-spec/parse-job";
import {
  buildWorkload,
  type Condition,
  finishedCondition,
  preemptorUid,
  queueOf,
  requeuedConditions,
  type WorkloadObject,
  workloadName,
} from "./workload";

function job(namespace: string, labels: Record<string, string>): ClusterJob {
  const parsed = parseJobObject({
    apiVersion: "sagemaker.amazonaws.com/v1",
    kind: "HyperPodPyTorchJob",
    metadata: { name: "llama", namespace, labels },
    spec: {
      replicaSpecs: [
        {
          name: "workers",
          replicas: 3,
          spares: 1,
          template: {
            spec: { containers: [{ name: "t", image: "i", resources: { limits: { "nvidia.com/gpu": 8 } } }] },
          },
        },
      ],
    },
  });
  if (!parsed.ok) throw new Error("bad fixture");
  return {
    ref: { namespace, name: "llama" },
    uid: "0b9c1f3e-7a52-4d1e-9a55-3f0c2b8e6d11",
    generation: 1,
    createdAt: new Date(0),
    object: parsed.job,
    status: {},
    deleting: false,
  };
}

const condition = (type: string, status: Condition["status"], reason: string, message = ""): Condition => ({
  type,
  status,
  reason,
  message,
  lastTransitionTime: "2026-01-01T00:00:00Z",
});

describe("workloadName", () => {
  it("is Kueue's: <kind>-<job>- and the first 5 hex of sha1(kind, group, name, uid)", () => {
    // What Kueue v0.14.0's own jobframework.GetWorkloadNameForOwnerWithGVK returns for this job (run in Go).
    expect(workloadName({ name: "llama", uid: "0b9c1f3e-7a52-4d1e-9a55-3f0c2b8e6d11" })).toBe(
      "hyperpodpytorchjob-llama-42e62",
    );
    expect(workloadName({ name: "llama", uid: "another-run" })).not.toBe(
      workloadName({ name: "llama", uid: "0b9c1f3e-7a52-4d1e-9a55-3f0c2b8e6d11" }),
    );
  });
});

describe("queueOf", () => {
  it("takes the queue label, else the team's LocalQueue in a team namespace, else none", () => {
    expect(queueOf(job("anywhere", { "kueue.x-k8s.io/queue-name": "q" }))).toBe("q");
    expect(queueOf(job("hyperpod-ns-team-a", {}))).toBe("hyperpod-ns-team-a-localqueue");
    expect(queueOf(job("default", {}))).toBeNull();
  });
});

describe("buildWorkload", () => {
  it("has one pod set per replica spec of replicas + spares pods, owned by the job", () => {
    const j = job("hyperpod-ns-a", {});
    const wl = buildWorkload(j, { queueName: "q", priority: { className: "training-priority", value: 70 } });
    expect(wl.spec).toMatchObject({ queueName: "q", priorityClassName: "training-priority", priority: 70 });
    expect(wl.spec.podSets.map((p) => [p.name, p.count])).toEqual([["workers", 4]]);
    expect(wl.metadata.ownerReferences?.[0]).toMatchObject({
      uid: j.uid,
      kind: "HyperPodPyTorchJob",
      controller: true,
    });
    expect(wl.metadata.finalizers).toEqual(["kueue.x-k8s.io/resource-in-use"]);
    expect(buildWorkload(j, { queueName: "q", priority: null }).spec.priority).toBe(0);
  });
});

const evictedWorkload = (reason: string): WorkloadObject => ({
  apiVersion: "kueue.x-k8s.io/v1beta1",
  kind: "Workload",
  metadata: { name: "w", namespace: "n", generation: 2 },
  spec: { queueName: "q", podSets: [] },
  status: {
    admission: { clusterQueue: "cq", podSetAssignments: [] },
    conditions: [
      condition("QuotaReserved", "True", "QuotaReserved"),
      condition("Admitted", "True", "Admitted"),
      condition(
        "Evicted",
        "True",
        reason,
        "Preempted to accommodate a workload (UID: u-1, JobUID: j-1) due to reclamation",
      ),
    ],
  },
});

describe("requeuedConditions (jobframework on a stopped, evicted job)", () => {
  it("marks it requeued after a preemption and drops the reservation and the admission", () => {
    const next = requeuedConditions(evictedWorkload("Preempted"), new Date("2026-02-01T00:00:00.123Z"));
    const byType = Object.fromEntries((next ?? []).map((c) => [c.type, c]));
    expect(byType.Requeued).toMatchObject({ status: "True", reason: "Preempted", observedGeneration: 2 });
    expect(byType.QuotaReserved).toMatchObject({
      status: "False",
      reason: "Pending",
      lastTransitionTime: "2026-02-01T00:00:00Z",
    });
    expect(byType.Admitted).toMatchObject({ status: "False", reason: "NoReservation" });
    expect(byType.Evicted?.status).toBe("True");
  });

  it("requeues without Requeued=True for other evictions, and does nothing without a reservation", () => {
    const next = requeuedConditions(evictedWorkload("ClusterQueueStopped"), new Date());
    expect(next?.find((c) => c.type === "Requeued")?.status).toBe("False");
    const cleared = evictedWorkload("Preempted");
    cleared.status = { conditions: [condition("Evicted", "True", "Preempted")] };
    expect(requeuedConditions(cleared, new Date())).toBeNull();
  });
});

describe("preemptorUid and finishedCondition", () => {
  it("reads the preemptor from Kueue's message, and finishes a failed job as Failed", () => {
    expect(
      preemptorUid("Preempted to accommodate a workload (UID: 1f2e, JobUID: 9) due to prioritization"),
    ).toBe("1f2e");
    expect(preemptorUid("evicted")).toBeNull();
    const failed = job("n", {});
    failed.status = { conditions: [{ type: "Failed", status: "True" }] } as ClusterJob["status"];
    expect(finishedCondition(failed, evictedWorkload("Preempted"), new Date(0))).toMatchObject({
      type: "Finished",
      status: "True",
      reason: "Failed",
      message: "Job finished",
    });
  });
});
