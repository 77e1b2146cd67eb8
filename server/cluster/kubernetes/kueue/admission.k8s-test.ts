import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ClusterJob } from "@/server/cluster/types";
import type { GovernanceConfig } from "@/server/domain/governance/types";
import { JOB_GROUP, JOB_PLURAL, JOB_VERSION } from "@/server/domain/job-spec/job-spec.schema";
import type { Logger } from "@/server/log";
import { createKueueGate, type KueueGate } from "@/server/operator/admission/kueue";
import type { AdmissionVerdict } from "@/server/operator/admission/types";
import { type JobObject, toClusterJob } from "../objects";
import { waitUntil } from "../testing/kube-env";
import { createKueueApi } from "./client";
import { type KueueEnv, startKueueEnv } from "./kueue-env";
import { syncKueue } from "./sync";
import { workloadName } from "./workload";
import { createKueueWorkloads } from "./workload-client";

/**
 * Borrow, then reclaim, decided by the real Kueue controller, through the operator's Kueue gate: team B's job
 * borrows team A's idle GPUs and is admitted; team A's job comes; Kueue evicts B's (Preempted,
 * InCohortReclamation); once B's pods are gone (requeue) A's is admitted and B's waits again; when A's job is
 * released B's is admitted again. The sync and the gate run as the operator's service account with the
 * rights deploy/rbac/operator gives it.
 */
const FLAVOR = "ml.g5.12xlarge";
const GPU = "nvidia.com/gpu";
const quiet: Logger = { info: () => {}, warn: () => {}, error: () => {}, child: () => quiet };

const config: GovernanceConfig = {
  teams: ["team-a", "team-b"].map((team) => ({
    team,
    active: true,
    guaranteed: { [FLAVOR]: { [GPU]: team === "team-a" ? 8 : 4 } },
    strategy: "LendAndBorrow",
    borrowLimitPercent: 100,
    absoluteBorrowLimit: {},
    preemptTeamTasks: "LowerPriority",
    fairShareWeight: 1,
  })),
  scheduler: {
    priorityClasses: [{ name: "training", weight: 70 }],
    taskRanking: true,
    fairShare: false,
    idleResourceSharing: true,
  },
};

let env: KueueEnv;
let gate: KueueGate;
const woken: string[] = [];

beforeAll(async () => {
  env = await startKueueEnv({ controller: true, jobCrd: true, fairSharing: false });
  // As the operator's service account, with deploy/rbac/operator's rights only.
  const kubeConfig = env.operatorKubeConfig;
  await syncKueue(config, createKueueApi(kubeConfig));
  gate = createKueueGate({ workloads: createKueueWorkloads({ kubeConfig, log: quiet }), log: quiet });
  gate.onWake((key) => woken.push(key));
}, 600_000);

afterAll(async () => {
  await gate?.dispose();
  await env?.stop();
}, 60_000);

/** A job of `pods` pods (replicas + spares) with 4 GPUs each, in the team's namespace and queue. */
async function submit(
  team: string,
  name: string,
  pods: { replicas: number; spares: number },
  priorityClass = "training-priority",
): Promise<ClusterJob> {
  const namespace = `hyperpod-ns-${team}`;
  const body = {
    apiVersion: `${JOB_GROUP}/${JOB_VERSION}`,
    kind: "HyperPodPyTorchJob",
    metadata: {
      name,
      namespace,
      labels: {
        "kueue.x-k8s.io/queue-name": `${namespace}-localqueue`,
        "kueue.x-k8s.io/priority-class": priorityClass,
      },
    },
    spec: {
      nprocPerNode: "4",
      replicaSpecs: [
        {
          name: "workers",
          ...pods,
          template: {
            spec: {
              containers: [{ name: "trainer", image: "trainer:1", resources: { limits: { [GPU]: 4 } } }],
            },
          },
        },
      ],
    },
  };
  const created = (await env.custom.createNamespacedCustomObject({
    group: JOB_GROUP,
    version: JOB_VERSION,
    plural: JOB_PLURAL,
    namespace,
    body,
  })) as JobObject;
  const job = toClusterJob(created);
  if (!job.ok) throw new Error(job.errors.join("; "));
  return job.job;
}

const verdictIs = (job: ClusterJob, state: AdmissionVerdict["state"]) =>
  waitUntil(
    `${job.ref.name} to be ${state}`,
    async () => {
      const verdict = await gate.verdict(job, Date.now());
      return verdict.state === state ? verdict : null;
    },
    30_000,
  );

type Cq = {
  status?: { flavorsReservation?: Array<{ resources: Array<{ name: string; borrowed: string }> }> };
};

describe("Kueue admission through the operator's gate", () => {
  let b: ClusterJob;
  let a: ClusterJob;

  it("admits team B's job on borrowed GPUs, with a Workload as jobframework builds it", async () => {
    b = await submit("team-b", "b-train", { replicas: 1, spares: 1 });
    expect((await gate.verdict(b, Date.now())).state).toBe("Pending");
    const admitted = await verdictIs(b, "Admitted");
    expect(admitted).toEqual({
      state: "Admitted",
      flavor: FLAVOR,
      nodeSelector: { "node.kubernetes.io/instance-type": FLAVOR },
    });

    const workload = (await env.read(
      "workloads",
      workloadName({ name: "b-train", uid: b.uid }),
      b.ref.namespace,
    )) as {
      metadata: { name: string; ownerReferences: Array<{ uid: string; kind: string }> };
      spec: {
        queueName: string;
        priority: number;
        priorityClassName: string;
        podSets: Array<{ count: number }>;
      };
    };
    expect(workload.metadata.name).toMatch(/^hyperpodpytorchjob-b-train-[0-9a-f]{5}$/);
    expect(workload.metadata.ownerReferences).toEqual([
      expect.objectContaining({ uid: b.uid, kind: "HyperPodPyTorchJob" }),
    ]);
    expect(workload.spec).toMatchObject({
      queueName: "hyperpod-ns-team-b-localqueue",
      priorityClassName: "training-priority",
      priority: 70,
    });
    expect(workload.spec.podSets.map((set) => set.count)).toEqual([2]); // replicas + spares

    // 8 GPUs on a guarantee of 4: Kueue counts 4 borrowed from the cohort.
    const cq = await waitUntil("B's borrowing to show", async () => {
      const read = (await env.read("clusterqueues", "hyperpod-ns-team-b-clusterqueue")) as Cq;
      const gpu = read.status?.flavorsReservation?.[0]?.resources.find((r) => r.name === GPU);
      return gpu?.borrowed === "4" ? gpu : null;
    });
    expect(cq.borrowed).toBe("4");
    expect(gate.describe(b)).toMatchObject({ state: "Admitted", flavor: FLAVOR });
  });

  it("evicts B's job when team A reclaims its guarantee, and admits A's once B's reservation is cleared", async () => {
    a = await submit("team-a", "a-train", { replicas: 2, spares: 0 });
    expect((await gate.verdict(a, Date.now())).state).toBe("Pending");
    woken.length = 0;
    const evicted = await verdictIs(b, "Evicted");
    expect(woken).toContain("hyperpod-ns-team-b/b-train"); // the controller reconciles B when Kueue evicts it
    expect(evicted).toMatchObject({
      state: "Evicted",
      reason: "InCohortReclamation",
      by: "hyperpod-ns-team-a/a-train",
    });
    expect(evicted.state === "Evicted" && evicted.message).toMatch(/Preempted to accommodate a workload/);
    expect(gate.describe(b)).toMatchObject({
      state: "Preempting",
      preemptedBy: "hyperpod-ns-team-a/a-train",
    });
    // B still holds its reservation until its pods are gone: A waits.
    expect((await gate.verdict(a, Date.now())).state).toBe("Pending");

    await gate.requeue(b); // the operator does this once B's pods are gone
    await verdictIs(a, "Admitted");
    const waiting = await gate.verdict(b, Date.now());
    expect(waiting.state).toBe("Pending");
    expect(gate.describe(b)).toMatchObject({
      state: "Preempted",
      reason: "InCohortReclamation",
      preemptedBy: "hyperpod-ns-team-a/a-train",
    });
  });

  it("frees A's quota when its job is released, and B's job is admitted again", async () => {
    await gate.release(a);
    await waitUntil(
      "A's Workload to be gone",
      async () =>
        (await env.read("workloads", workloadName({ name: "a-train", uid: a.uid }), a.ref.namespace)) ===
        null,
    );
    await verdictIs(b, "Admitted");
    expect(gate.describe(b)).toMatchObject({ state: "Admitted" });
  });

  it("removes the Workloads of a job that is gone without a last reconcile (forget)", async () => {
    gate.forget("hyperpod-ns-team-b/b-train");
    await waitUntil(
      "B's Workload to be gone",
      async () =>
        (await env.read("workloads", workloadName({ name: "b-train", uid: b.uid }), b.ref.namespace)) ===
        null,
    );
  });

  it("refuses a job naming an undefined priority class, listing the defined ones, and makes no Workload", async () => {
    const job = await submit("team-a", "typo", { replicas: 1, spares: 0 }, "trainig-priority");
    expect(await gate.verdict(job, Date.now())).toEqual({
      state: "Pending",
      reason: "UnknownPriorityClass",
      message:
        'priority class "trainig-priority" is not defined; the defined priority classes are: training-priority',
    });
    expect(
      await env.read("workloads", workloadName({ name: "typo", uid: job.uid }), job.ref.namespace),
    ).toBeNull();
  });
});
