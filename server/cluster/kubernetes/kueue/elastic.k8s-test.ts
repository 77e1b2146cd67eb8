import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ClusterJob } from "@/server/cluster/types";
import type { GovernanceConfig, TeamQuota } from "@/server/domain/governance/types";
import { JOB_GROUP, JOB_PLURAL, JOB_VERSION } from "@/server/domain/job-spec/job-spec.schema";
import type { Logger } from "@/server/log";
import { createKueueGate, type KueueGate } from "@/server/operator/admission/kueue";
import type { AdmissionVerdict } from "@/server/operator/admission/types";
import { type JobObject, toClusterJob } from "../objects";
import { waitUntil } from "../testing/kube-env";
import { createKueueApi } from "./client";
import { stepWorkloadName } from "./elastic-workloads";
import { type KueueEnv, startKueueEnv } from "./kueue-env";
import { syncKueue } from "./sync";
import { workloadName } from "./workload";
import { createKueueWorkloads } from "./workload-client";

/**
 * Elastic capacity through the real Kueue controller (docs/hyperpod-compatibility.md, "Elastic training"),
 * through the operator's Kueue gate and its ElasticCapacity: an elastic job runs at its minimum on its team's
 * guarantee; asking for more creates one Workload per step, which waits while another team's job holds the
 * GPUs and is admitted when that job ends; when the other team reclaims its guarantee Kueue preempts the
 * steps, not the job's own Workload, and once the job gives the steps back the other team's job is admitted.
 * Then the partial-preemption shape (a high-priority `base` spec, a low-priority `elastic` spec): a
 * mid-priority job of the same team takes the elastic steps and never the base. With two instance types, a
 * step waits for room on its job's flavor rather than being admitted on another. As the operator's service
 * account (deploy/rbac/operator).
 */
const FLAVOR = "ml.g5.12xlarge";
const FLAVOR_2 = "ml.p5.48xlarge";
const GPU = "nvidia.com/gpu";
const quiet: Logger = { info: () => {}, warn: () => {}, error: () => {}, child: () => quiet };

const team = (name: string, gpus: number, strategy: TeamQuota["strategy"]): TeamQuota => ({
  team: name,
  active: true,
  guaranteed: { [FLAVOR]: { [GPU]: gpus } },
  strategy,
  borrowLimitPercent: 100,
  absoluteBorrowLimit: {},
  preemptTeamTasks: "LowerPriority",
  fairShareWeight: 1,
});

const config: GovernanceConfig = {
  teams: [
    team("team-a", 8, "LendAndBorrow"),
    team("team-b", 8, "LendAndBorrow"),
    team("team-c", 16, "DontLend"),
    team("team-e", 8, "DontLend"),
    // Two instance types: a step goes where the job's own Workload went, not to the next flavor with room.
    { ...team("team-d", 8, "DontLend"), guaranteed: { [FLAVOR]: { [GPU]: 8 }, [FLAVOR_2]: { [GPU]: 8 } } },
  ],
  scheduler: {
    priorityClasses: [
      { name: "training", weight: 70 },
      { name: "high", weight: 1000 },
      { name: "mid", weight: 100 },
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
  const kubeConfig = env.operatorKubeConfig;
  await syncKueue(config, createKueueApi(kubeConfig));
  gate = createKueueGate({ workloads: createKueueWorkloads({ kubeConfig, log: quiet }), log: quiet });
}, 600_000);

afterAll(async () => {
  await gate?.dispose();
  await env?.stop();
}, 60_000);

type Spec = { name: string; replicas: number; maxReplicas?: number; template: Record<string, unknown> };

/** A pod template asking 4 GPUs; `priority`: a pod-template label (`label`) or priorityClassName (`pod`). */
function template(priority?: { label?: string; pod?: string }): Record<string, unknown> {
  return {
    ...(priority?.label ? { metadata: { labels: { "kueue.x-k8s.io/priority-class": priority.label } } } : {}),
    spec: {
      ...(priority?.pod ? { priorityClassName: priority.pod } : {}),
      containers: [{ name: "trainer", image: "trainer:1", resources: { limits: { [GPU]: 4 } } }],
    },
  };
}

async function submit(
  teamName: string,
  name: string,
  spec: { replicaSpecs: Spec[]; elasticPolicy?: Record<string, number> },
  priorityClass?: string,
): Promise<ClusterJob> {
  const namespace = `hyperpod-ns-${teamName}`;
  const labels: Record<string, string> = { "kueue.x-k8s.io/queue-name": `${namespace}-localqueue` };
  if (priorityClass) labels["kueue.x-k8s.io/priority-class"] = priorityClass;
  const created = (await env.custom.createNamespacedCustomObject({
    group: JOB_GROUP,
    version: JOB_VERSION,
    plural: JOB_PLURAL,
    namespace,
    body: {
      apiVersion: `${JOB_GROUP}/${JOB_VERSION}`,
      kind: "HyperPodPyTorchJob",
      metadata: { name, namespace, labels },
      spec: { nprocPerNode: "4", ...spec },
    },
  })) as JobObject;
  const job = toClusterJob(created);
  if (!job.ok) throw new Error(job.errors.join("; "));
  return job.job;
}

/**
 * The job as the operator sees it once its pods run at `size` (status.rebound.elastic, which
 * server/domain/elastic/in-use.ts reads): a step below it is in use, so its eviction is a preemption to act on.
 */
const runningAt = (job: ClusterJob, size: number): ClusterJob =>
  ({ ...job, status: { ...job.status, rebound: { elastic: { size } } } }) as ClusterJob;

const fixed = (teamName: string, name: string, pods: number, priorityClass: string) =>
  submit(
    teamName,
    name,
    { replicaSpecs: [{ name: "workers", replicas: pods, template: template() }] },
    priorityClass,
  );

const verdictIs = (job: ClusterJob, state: AdmissionVerdict["state"]) =>
  waitUntil(
    `${job.ref.name} to be ${state}`,
    async () => {
      const verdict = await gate.verdict(job, Date.now());
      return verdict.state === state ? verdict : null;
    },
    30_000,
  );

type Workload = {
  metadata: { ownerReferences: Array<{ uid: string }>; labels: Record<string, string> };
  spec: { priority: number; priorityClassName?: string; podSets: Array<{ name: string; count: number }> };
  status?: { conditions?: Array<{ type: string; status: string; reason: string }> };
};

const readStep = async (job: ClusterJob, size: number) =>
  (await env.read(
    "workloads",
    stepWorkloadName({ name: job.ref.name, uid: job.uid }, size),
    job.ref.namespace,
  )) as Workload | null;

const readBase = async (job: ClusterJob) =>
  (await env.read(
    "workloads",
    workloadName({ name: job.ref.name, uid: job.uid }),
    job.ref.namespace,
  )) as Workload;

const condition = (workload: Workload | null, type: string) =>
  workload?.status?.conditions?.find((each) => each.type === type);

describe("an elastic job's steps through Kueue", () => {
  let other: ClusterJob;
  let elastic: ClusterJob;

  it("runs at its minimum while another team's job holds the GPUs it could borrow", async () => {
    other = await fixed("team-b", "b-fixed", 2, "training-priority");
    await verdictIs(other, "Admitted");
    elastic = await submit(
      "team-a",
      "a-elastic",
      {
        elasticPolicy: { minReplicas: 2, maxReplicas: 4, replicaIncrementStep: 1 },
        replicaSpecs: [{ name: "workers", replicas: 2, maxReplicas: 4, template: template() }],
      },
      "training-priority",
    );
    await verdictIs(elastic, "Admitted");
    expect((await readBase(elastic)).spec.podSets.map((set) => set.count)).toEqual([2]);
    expect(gate.elastic.admitted(elastic)).toBe(2);

    expect(await gate.elastic.request(elastic, 4)).toBe("pending");
    const step3 = await waitUntil("the first step's Workload to wait for quota", async () => {
      const three = await readStep(elastic, 3);
      return condition(three, "QuotaReserved")?.status === "False" ? three : null;
    });
    // Steps are asked for in order: the next only once the one below is admitted.
    expect(await readStep(elastic, 4)).toBeNull();
    expect(step3?.metadata.ownerReferences).toEqual([expect.objectContaining({ uid: elastic.uid })]);
    expect(step3?.metadata.labels).toMatchObject({ "rebound.dev/elastic-size": "3" });
    expect(step3?.spec).toMatchObject({ priority: 69, podSets: [{ name: "workers", count: 1 }] });
    expect(await gate.elastic.request(elastic, 4)).toBe("pending"); // idempotent: no second Workload
    expect(gate.elastic.admitted(elastic)).toBe(2);
    expect(gate.elastic.preempted(elastic)).toBeNull();
  });

  it("is admitted step by step once the other team's job ends, and the job may grow to 4", async () => {
    await gate.release(other);
    await waitUntil("both steps admitted", async () =>
      (await gate.elastic.request(elastic, 4)) === "admitted" ? true : null,
    );
    expect(gate.elastic.admitted(elastic)).toBe(4);
    expect(condition(await readStep(elastic, 4), "Admitted")?.status).toBe("True");

    // A restarted operator (a new gate, its caches listed afresh) sees the same: nothing asked for twice.
    const kubeConfig = env.operatorKubeConfig;
    const again = createKueueGate({
      workloads: createKueueWorkloads({ kubeConfig, log: quiet }),
      log: quiet,
    });
    try {
      expect((await again.verdict(elastic, Date.now())).state).toBe("Admitted");
      expect(await again.elastic.request(elastic, 4)).toBe("admitted");
      expect(again.elastic.admitted(elastic)).toBe(4);
      expect(again.elastic.preempted(elastic)).toBeNull();
    } finally {
      await again.dispose();
    }
  });

  it("loses its steps, not its own Workload, when the other team reclaims its guarantee", async () => {
    other = await fixed("team-b", "b-back", 2, "training-priority");
    expect((await gate.verdict(other, Date.now())).state).toBe("Pending");
    // Kueue may evict the two steps in separate cycles: the job is back to its base once both are gone.
    const size = await waitUntil("Kueue to preempt both steps", () =>
      gate.elastic.preempted(runningAt(elastic, 4)) === 2 ? 2 : null,
    );
    expect(size).toBe(2);
    const evicted = condition(await readStep(elastic, 4), "Evicted");
    expect(evicted).toMatchObject({ status: "True", reason: "Preempted" });
    expect(condition(await readBase(elastic), "Evicted")?.status).not.toBe("True");
    expect((await gate.verdict(elastic, Date.now())).state).toBe("Admitted");
    // The steps keep their reservation until the job has scaled down and gives them back.
    expect((await gate.verdict(other, Date.now())).state).toBe("Pending");

    await gate.elastic.release(elastic, 2);
    await verdictIs(other, "Admitted");
    expect(await readStep(elastic, 3)).toBeNull();
    expect(await readStep(elastic, 4)).toBeNull();
    expect(gate.elastic.preempted(elastic)).toBeNull();
    expect(gate.elastic.admitted(elastic)).toBe(2);
    expect((await gate.verdict(elastic, Date.now())).state).toBe("Admitted");
  });

  it("drops the steps with the job's own Workload when the job is released", async () => {
    expect(await gate.elastic.request(elastic, 3)).toBe("pending");
    expect(await readStep(elastic, 3)).not.toBeNull();
    await gate.release(elastic);
    expect(await readStep(elastic, 3)).toBeNull();
    await waitUntil(
      "the job's own Workload to be gone",
      async () =>
        (await env.read(
          "workloads",
          workloadName({ name: elastic.ref.name, uid: elastic.uid }),
          elastic.ref.namespace,
        )) === null,
    );
  });
});

describe("the partial-preemption shape through Kueue", () => {
  let job: ClusterJob;

  it("holds the high-priority base in the job's own Workload and the low-priority growth in steps", async () => {
    job = await submit("team-c", "c-partial", {
      elasticPolicy: { minReplicas: 2, maxReplicas: 4, replicaIncrementStep: 1 },
      replicaSpecs: [
        { name: "base", replicas: 2, template: template({ pod: "high-priority" }) },
        { name: "elastic", replicas: 0, maxReplicas: 2, template: template({ label: "low-priority" }) },
      ],
    });
    await verdictIs(job, "Admitted");
    expect((await readBase(job)).spec).toMatchObject({
      priorityClassName: "high-priority",
      priority: 1000,
      podSets: [
        { name: "base", count: 2 },
        { name: "elastic", count: 0 },
      ],
    });
    await waitUntil("the elastic steps admitted", async () =>
      (await gate.elastic.request(job, 4)) === "admitted" ? true : null,
    );
    expect((await readStep(job, 4))?.spec).toMatchObject({
      priorityClassName: "low-priority",
      priority: 9,
      podSets: [{ name: "elastic", count: 1 }],
    });
    expect(gate.elastic.admitted(job)).toBe(4);
  });

  it("gives a higher-priority job of its team the elastic steps, never the base", async () => {
    const mid = await fixed("team-c", "c-mid", 2, "mid-priority");
    expect((await gate.verdict(mid, Date.now())).state).toBe("Pending");
    const size = await waitUntil("Kueue to preempt the steps", () =>
      gate.elastic.preempted(runningAt(job, 4)),
    );
    expect(size).toBe(2);
    expect(condition(await readStep(job, 3), "Evicted")).toMatchObject({
      status: "True",
      reason: "Preempted",
    });
    await gate.elastic.release(job, 2);
    await verdictIs(mid, "Admitted");
    expect((await gate.verdict(job, Date.now())).state).toBe("Admitted");
    expect(condition(await readBase(job), "Evicted")?.status).not.toBe("True");
    expect(gate.elastic.admitted(job)).toBe(2);
  });
});

describe("a step on a cluster of two instance types", () => {
  it("waits for room on the flavor its job's own Workload was given, and is admitted there", async () => {
    const filler = await fixed("team-d", "d-filler", 1, "training-priority");
    await verdictIs(filler, "Admitted");
    const job = await submit(
      "team-d",
      "d-elastic",
      {
        elasticPolicy: { minReplicas: 1, maxReplicas: 2 },
        replicaSpecs: [{ name: "workers", replicas: 1, maxReplicas: 2, template: template() }],
      },
      "training-priority",
    );
    // The first flavor has room for the filler and the job's minimum; the second stays empty.
    expect(await verdictIs(job, "Admitted")).toMatchObject({ flavor: FLAVOR });
    expect(await gate.elastic.request(job, 2)).toBe("pending");
    const waiting = await waitUntil("the step to wait for room", async () => {
      const step = await readStep(job, 2);
      return condition(step, "QuotaReserved")?.status === "False" ? step : null;
    });
    expect(waiting?.spec).toMatchObject({
      podSets: [{ template: { spec: { nodeSelector: { "node.kubernetes.io/instance-type": FLAVOR } } } }],
    });
    expect(await gate.elastic.request(job, 2)).toBe("pending"); // the second flavor's 8 GPUs are not taken

    await gate.release(filler);
    await waitUntil("the step admitted", async () =>
      (await gate.elastic.request(job, 2)) === "admitted" ? true : null,
    );
    const admitted = (await readStep(job, 2)) as Workload & {
      status: { admission: { podSetAssignments: Array<{ flavors: Record<string, string> }> } };
    };
    expect(admitted.status.admission.podSetAssignments[0]?.flavors).toEqual({ [GPU]: FLAVOR });
  });
});

describe("steps yield to a job of the same priority class", () => {
  it("gives a waiting job of the same class and team the steps (they are one below the class), not the base", async () => {
    const job = await submit(
      "team-e",
      "e-elastic",
      {
        elasticPolicy: { minReplicas: 1, maxReplicas: 2 },
        replicaSpecs: [{ name: "workers", replicas: 1, maxReplicas: 2, template: template() }],
      },
      "training-priority",
    );
    await verdictIs(job, "Admitted");
    await waitUntil("the step admitted", async () =>
      (await gate.elastic.request(job, 2)) === "admitted" ? true : null,
    );
    expect((await readStep(job, 2))?.spec.priority).toBe(69);

    const same = await fixed("team-e", "e-fixed", 1, "training-priority");
    expect((await gate.verdict(same, Date.now())).state).toBe("Pending");
    expect(
      await waitUntil("Kueue to preempt the step", () => gate.elastic.preempted(runningAt(job, 2))),
    ).toBe(1);
    await gate.elastic.release(job, 1);
    await verdictIs(same, "Admitted");
    expect((await gate.verdict(job, Date.now())).state).toBe("Admitted");
  });
});
