import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ClusterJob } from "@/server/cluster/types";
import { decideAdmissions } from "@/server/domain/governance/admission";
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
import { createKueueWorkloads } from "./workload-client";

/**
 * A team's advanced Kueue setting decided by the real Kueue controller, and the same decision by the local
 * admission: team A (8 GPUs) has `reclaimWithinCohort: LowerPriority`; team B's mid-priority job borrows 4 of
 * A's GPUs (12 on a guarantee of 4, of 16 in all). A's low-priority job of 8 GPUs does NOT evict it (it waits), A's high-priority job does
 * (InCohortReclamation). The sync also writes the teams' Cohort with the unallocated GPUs (idle resource
 * sharing), which Kueue accepts.
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
    borrowLimitPercent: 200,
    absoluteBorrowLimit: {},
    preemptTeamTasks: "LowerPriority",
    fairShareWeight: 1,
    ...(team === "team-a" ? { kueue: { reclaimWithinCohort: "LowerPriority" as const } } : {}),
  })),
  scheduler: {
    priorityClasses: [
      { name: "high", weight: 90 },
      { name: "mid", weight: 50 },
      { name: "low", weight: 10 },
    ],
    taskRanking: true,
    fairShare: false,
    idleResourceSharing: true,
  },
};

let env: KueueEnv;
let gate: KueueGate;

beforeAll(async () => {
  env = await startKueueEnv({ controller: true, jobCrd: true, fairSharing: false });
  const kubeConfig = env.operatorKubeConfig; // deploy/rbac/operator's rights only
  // 16 GPUs of the flavor: 12 guaranteed, 4 unallocated go to the cohort.
  await syncKueue(config, createKueueApi(kubeConfig), { [FLAVOR]: { [GPU]: 16 } });
  gate = createKueueGate({ workloads: createKueueWorkloads({ kubeConfig, log: quiet }), log: quiet });
}, 600_000);

afterAll(async () => {
  await gate?.dispose();
  await env?.stop();
}, 60_000);

/** A job of `pods` pods with 4 GPUs each, in the team's namespace and queue. */
async function submit(team: string, name: string, priority: string, pods = 2): Promise<ClusterJob> {
  const namespace = `hyperpod-ns-${team}`;
  const created = (await env.custom.createNamespacedCustomObject({
    group: JOB_GROUP,
    version: JOB_VERSION,
    plural: JOB_PLURAL,
    namespace,
    body: {
      apiVersion: `${JOB_GROUP}/${JOB_VERSION}`,
      kind: "HyperPodPyTorchJob",
      metadata: {
        name,
        namespace,
        labels: {
          "kueue.x-k8s.io/queue-name": `${namespace}-localqueue`,
          "kueue.x-k8s.io/priority-class": `${priority}-priority`,
        },
      },
      spec: {
        nprocPerNode: "4",
        replicaSpecs: [
          {
            name: "workers",
            replicas: pods,
            template: {
              spec: {
                containers: [{ name: "trainer", image: "trainer:1", resources: { limits: { [GPU]: 4 } } }],
              },
            },
          },
        ],
      },
    },
  })) as JobObject;
  const job = toClusterJob(created);
  if (!job.ok) throw new Error(job.errors.join("; "));
  return job.job;
}

type WorkloadList = {
  items: Array<{
    metadata: { name: string; namespace: string };
    spec: { priority?: number };
    status?: { conditions?: Array<{ type: string; status: string; reason: string; message: string }> };
  }>;
};

/** Every Workload with its priority and conditions (a timeout says what Kueue thought). */
async function workloads(): Promise<string> {
  const parts: string[] = [];
  for (const namespace of ["hyperpod-ns-team-a", "hyperpod-ns-team-b"]) {
    const list = (await env.custom.listNamespacedCustomObject({
      group: "kueue.x-k8s.io",
      version: "v1beta1",
      namespace,
      plural: "workloads",
    })) as WorkloadList;
    for (const item of list.items) {
      const conditions = (item.status?.conditions ?? [])
        .map((c) => `${c.type}=${c.status} ${c.reason}: ${c.message}`)
        .join("; ");
      parts.push(`${item.metadata.name} (priority ${item.spec.priority ?? 0}) ${conditions}`);
    }
  }
  return parts.join(" | ");
}

const verdictIs = (job: ClusterJob, state: AdmissionVerdict["state"]) =>
  waitUntil(
    `${job.ref.name} to be ${state}`,
    async () => {
      const verdict = await gate.verdict(job, Date.now());
      return verdict.state === state ? verdict : null;
    },
    30_000,
    workloads,
  );

/** The local admission on the same state: A's job of `priority` against B's borrowing mid job. */
function localDecision(priority: string) {
  return decideAdmissions({
    config,
    capacity: { [FLAVOR]: { [GPU]: 16 } },
    admitted: [
      {
        key: "hyperpod-ns-team-b/b-mid",
        team: "team-b",
        priorityClass: "mid",
        createdAt: 0,
        request: { [GPU]: 12 },
        flavors: null,
        flavor: FLAVOR,
        admittedAt: 0,
      },
    ],
    pending: [
      {
        key: `hyperpod-ns-team-a/a-${priority}`,
        team: "team-a",
        priorityClass: priority,
        createdAt: 1,
        request: { [GPU]: 8 },
        flavors: null,
      },
    ],
    now: 2,
  });
}

describe("reclaimWithinCohort: LowerPriority on real Kueue and in the local admission", () => {
  let b: ClusterJob;

  it("writes the teams' Cohort with the unallocated GPUs, and Kueue keeps the queues active", async () => {
    const cohort = (await env.read("cohorts", "hyperpod-teams")) as {
      spec: { resourceGroups: Array<{ flavors: Array<{ resources: Array<Record<string, string>> }> }> };
    };
    expect(cohort.spec.resourceGroups[0]?.flavors[0]?.resources).toEqual([{ name: GPU, nominalQuota: "4" }]);
    const cq = (await env.read("clusterqueues", "hyperpod-ns-team-a-clusterqueue")) as {
      spec: { preemption: Record<string, unknown> };
    };
    expect(cq.spec.preemption).toMatchObject({ reclaimWithinCohort: "LowerPriority" });
  });

  it("a low-priority job of the lender does not evict the mid-priority borrower, on both back ends", async () => {
    b = await submit("team-b", "b-mid", "mid", 3);
    await verdictIs(b, "Admitted");
    const low = await submit("team-a", "a-low", "low");
    expect((await gate.verdict(low, Date.now())).state).toBe("Pending");
    // Kueue decides in milliseconds; after 5 s the borrower still runs and the lender's job waits.
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    expect((await gate.verdict(b, Date.now())).state).toBe("Admitted");
    expect((await gate.verdict(low, Date.now())).state).toBe("Pending");

    const local = localDecision("low");
    expect(local.preempt).toEqual([]);
    expect(local.admit).toEqual([]);
  });

  it("a high-priority job of the lender evicts it (InCohortReclamation), on both back ends", async () => {
    const high = await submit("team-a", "a-high", "high");
    // The gate creates the job's Workload at its first verdict, as the operator's reconcile does.
    expect((await gate.verdict(high, Date.now())).state).toBe("Pending");
    const evicted = await verdictIs(b, "Evicted");
    expect(evicted).toMatchObject({ reason: "InCohortReclamation", by: `${high.ref.namespace}/a-high` });

    const local = localDecision("high");
    expect(local.preempt.map((p) => [p.victim.key, p.reason])).toEqual([
      ["hyperpod-ns-team-b/b-mid", "InCohortReclamation"],
    ]);
  });
});
