import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { type JobRef, jobKey } from "@/server/cluster/types";
import { createDb, type Db } from "@/server/db/client";
import type { GovernanceConfig } from "@/server/domain/governance/types";
import { JOB_GROUP, JOB_PLURAL, JOB_VERSION } from "@/server/domain/job-spec/job-spec.schema";
import { createLogger } from "@/server/log";
import { createKueueGate, type KueueGate } from "@/server/operator/admission/kueue";
import { type Controller, createController } from "@/server/operator/controller";
import type { OperatorDeps } from "@/server/operator/reconcilers/deps";
import { demoJobYaml } from "@/server/operator/testing/jobs";
import { createOperatorDeps } from "@/server/operator/wiring";
import { createSeededTestDatabase } from "@/test/database";
import { createKubernetesBackend, type KubernetesBackend } from "../backend";
import { LABEL_JOB } from "../objects";
import { REPO_ROOT, waitUntil } from "../testing/kube-env";
import { type PodAgents, startPodAgents } from "../testing/pod-agents";
import { createKueueApi } from "./client";
import { sizeOf } from "./elastic-workloads";
import { type KueueEnv, startKueueEnv } from "./kueue-env";
import { startKueueSync } from "./sync";
import { conditionOf, isTrue, type WorkloadObject, workloadName } from "./workload";
import { createKueueWorkloads } from "./workload-client";

/**
 * Elastic training on the kubernetes back end through Kueue (issue 14), end to end: the operator (controller,
 * kubernetes back end, real agents and demo-trainer workers for the pods KWOK runs) with Kueue's gate, and
 * the real Kueue deciding. 4 nodes × 4 GPUs. Team A's elastic job (1 to 4 pods of 4 GPUs) starts at its
 * minimum while team B's job holds the other 12 GPUs; B's job is deleted and A's grows to 4 (one extra
 * Workload per step, admitted on B's idle GPUs); a higher-priority job of team B arrives, Kueue preempts
 * A's steps (never A's own Workload) and A shrinks gracefully to what is left (2) while B's runs. The
 * trainer's step never goes backwards and no rank is SIGKILLed. Then the partial-preemption shape: a base spec
 * at a high priority and an elastic spec at a low one; team B reclaims and only elastic pods go.
 */
const NODES = ["kwok-node-0", "kwok-node-1", "kwok-node-2", "kwok-node-3"];
const GPU = "nvidia.com/gpu";
const GRACEFUL_SECONDS = 20;
const log = createLogger({ service: "kueue-elastic-it" });
const quiet = { ...log, info: () => undefined };
const JOB_API = { group: JOB_GROUP, version: JOB_VERSION, plural: JOB_PLURAL };
const A: JobRef = { namespace: "hyperpod-ns-team-a", name: "a-elastic" };
const B1: JobRef = { namespace: "hyperpod-ns-team-b", name: "b-first" };
const B2: JobRef = { namespace: "hyperpod-ns-team-b", name: "b-urgent" };
const P: JobRef = { namespace: "hyperpod-ns-team-a", name: "p-partial" };
const M: JobRef = { namespace: "hyperpod-ns-team-b", name: "b-reclaim" };

const config: GovernanceConfig = {
  teams: [
    { team: "team-a", gpus: 4 },
    { team: "team-b", gpus: 12 },
  ].map(({ team, gpus }) => ({
    team,
    active: true,
    guaranteed: { default: { [GPU]: gpus } },
    strategy: "LendAndBorrow",
    borrowLimitPercent: 300,
    absoluteBorrowLimit: {},
    preemptTeamTasks: "LowerPriority",
    fairShareWeight: 1,
  })),
  scheduler: {
    priorityClasses: [
      { name: "training", weight: 50 },
      { name: "inference", weight: 100 },
      { name: "low", weight: 10 },
    ],
    taskRanking: true,
    fairShare: false,
    idleResourceSharing: true,
  },
};

let env: KueueEnv;
let database: { url: string; drop: () => Promise<void> };
let db: Db;
let agents: PodAgents;
let agentDir: string;
let backend: KubernetesBackend;
let gate: KueueGate;
let deps: OperatorDeps;
let controller: Controller;

beforeAll(async () => {
  database = await createSeededTestDatabase("it_kueue_elastic");
  db = createDb(database.url);
  env = await startKueueEnv({
    controller: true,
    jobCrd: true,
    fairSharing: false,
    nodes: NODES,
    gpusPerNode: 4,
  });
  agentDir = await mkdtemp(path.join(tmpdir(), "rebound-kueue-elastic-"));
  agents = await startPodAgents({
    kubeConfig: env.kubeConfig,
    repoRoot: REPO_ROOT,
    dataDir: agentDir,
    log: quiet,
  });
  // All of the operator as its service account, with deploy/rbac/operator's rights only.
  backend = await createKubernetesBackend({
    kubeConfig: env.operatorKubeConfig,
    log: quiet,
    mode: "operator",
  });
  const sync = startKueueSync({
    load: async () => config,
    api: createKueueApi(env.operatorKubeConfig),
    log: quiet,
  });
  await sync.trigger();
  gate = createKueueGate({
    workloads: createKueueWorkloads({ kubeConfig: env.operatorKubeConfig, log: quiet }),
    log: quiet,
    sync,
  });
  deps = createOperatorDeps({ backend, db, log: quiet, config: { stopTimeoutSeconds: 5 }, admission: gate });
  controller = createController(deps, { workers: 4, resyncMs: 30_000 });
  await backend.start();
  await controller.start();
}, 600_000);

afterAll(async () => {
  await controller?.stop();
  await deps?.admission?.dispose();
  await backend?.stop();
  agents?.stop();
  await env?.stop();
  await db?.$disconnect();
  await database?.drop();
  if (agentDir) await rm(agentDir, { recursive: true, force: true });
}, 60_000);

type JobBody = { metadata: { namespace: string; labels?: Record<string, string> } };

async function submit(yaml: string | JobBody): Promise<void> {
  const body = typeof yaml === "string" ? (parse(yaml) as JobBody) : yaml;
  const namespace = body.metadata.namespace;
  body.metadata.labels = { ...body.metadata.labels, "kueue.x-k8s.io/queue-name": `${namespace}-localqueue` };
  await env.custom.createNamespacedCustomObject({ ...JOB_API, namespace, body });
}

function elasticYaml(): string {
  const base = demoJobYaml({
    ...A,
    nodes: 1,
    ranks: 1,
    gpusPerPod: 4,
    gracefulSeconds: GRACEFUL_SECONDS,
    labels: { "kueue.x-k8s.io/priority-class": "training-priority" },
  });
  const policy = [
    "  elasticPolicy:",
    "    minReplicas: 1",
    "    maxReplicas: 4",
    "    replicaIncrementStep: 1",
    "    scalingTimeoutInSeconds: 2",
    `    gracefulShutdownTimeoutInSeconds: ${GRACEFUL_SECONDS}`,
    "",
  ].join("\n");
  return `${base.slice(0, base.indexOf("  elasticPolicy:"))}${policy}${base.slice(base.indexOf("  runPolicy:"))}`;
}

type Spec = { name: string; replicas: number; maxReplicas?: number; template: Record<string, unknown> };
type Parsed = JobBody & { spec: { replicaSpecs: Spec[]; elasticPolicy?: unknown } };

/**
 * The partial-preemption shape (docs/hyperpod-compatibility.md, "Elastic training"): a `base` spec of 1 pod
 * at inference priority and an `elastic` spec of 0 to 3 pods at low priority (their templates' priority-class
 * labels), 1 to 4 in all.
 */
function partialJob(): Parsed {
  const body = parse(demoJobYaml({ ...P, nodes: 1, ranks: 1, gpusPerPod: 4 })) as Parsed;
  const [worker] = body.spec.replicaSpecs;
  if (!worker) throw new Error("no replica spec");
  const labelled = (priorityClass: string) => ({
    ...worker.template,
    metadata: { labels: { "kueue.x-k8s.io/priority-class": priorityClass } },
  });
  body.spec.replicaSpecs = [
    { name: "base", replicas: 1, template: labelled("inference-priority") },
    { name: "elastic", replicas: 0, maxReplicas: 3, template: labelled("low-priority") },
  ];
  body.spec.elasticPolicy = {
    minReplicas: 1,
    maxReplicas: 4,
    replicaIncrementStep: 1,
    scalingTimeoutInSeconds: 2,
    gracefulShutdownTimeoutInSeconds: GRACEFUL_SECONDS,
  };
  return body;
}

const fixedYaml = (ref: JobRef, nodes: number, priorityClass: string) =>
  demoJobYaml({
    ...ref,
    nodes,
    ranks: 1,
    gpusPerPod: 4,
    labels: { "kueue.x-k8s.io/priority-class": priorityClass },
  });

const live = (ref: JobRef) => deps.live.get(jobKey(ref));

function summary(ref: JobRef): string {
  const job = live(ref);
  if (!job) return `${ref.name}: not seen`;
  const pods = job.pods.map((pod) => `${pod.name}:${pod.phase}/${pod.agentState}`);
  return `${ref.name}: ${job.phase} ${job.reason ?? ""} admission=${job.admission?.state} elastic=${JSON.stringify(job.elastic)} pods=${pods.join(" ")}`;
}

async function wait<T>(
  what: string,
  probe: () => T | undefined | null | false,
  timeoutMs: number,
): Promise<T> {
  try {
    return await waitUntil(what, probe, timeoutMs);
  } catch (error) {
    const workloads = (await workloadsOf(A)).map((w) => `${w.metadata.name}:${conditions(w)}`);
    throw new Error(
      `${String(error)}\n${[A, B1, B2, P, M].map(summary).join("\n")}\nA's Workloads: ${workloads.join(" | ")}`,
    );
  }
}

/** The job runs at `replicas` with every rank printing steps past `beyond`. */
const runningAt = (replicas: number, beyond: number, ref: JobRef = A) =>
  wait(
    `${ref.name} running at ${replicas} past step ${beyond}`,
    () => {
      const job = live(ref);
      const elastic = job?.elastic;
      if (
        job?.phase !== "Running" ||
        elastic?.actualReplicas !== replicas ||
        elastic.targetReplicas !== replicas
      )
        return false;
      const steps = job.pods.flatMap((pod) => pod.ranks.map((rank) => rank.step ?? -1));
      return steps.length === replicas && Math.min(...steps) > beyond;
    },
    240_000,
  );

const rank0Step = () => live(A)?.pods[0]?.ranks[0]?.step ?? 0;

const conditions = (workload: WorkloadObject) =>
  ["QuotaReserved", "Admitted", "Evicted"]
    .map((type) => `${type}=${conditionOf(workload, type)?.status ?? "-"}`)
    .join(",");

async function podNames(ref: JobRef): Promise<string[]> {
  const { items } = await env.core.listNamespacedPod({
    namespace: ref.namespace,
    labelSelector: `${LABEL_JOB}=${ref.name}`,
  });
  return items.filter((pod) => !pod.metadata?.deletionTimestamp).map((pod) => pod.metadata?.name ?? "");
}

/** Samples rank 0's step and every rank's end signal of A's job throughout (the trainer's progress). */
function sampler() {
  const rank0: number[] = [];
  const signals = new Set<string>();
  const sample = () => {
    const ranks = (live(A)?.pods ?? []).flatMap((pod) => pod.ranks.map((rank) => ({ pod, rank })));
    for (const { rank } of ranks) if (rank.signal) signals.add(rank.signal);
    const first = ranks.find(({ pod, rank }) => pod.groupRank === 0 && rank.rank === 0)?.rank.step;
    if (first !== null && first !== undefined) rank0.push(first);
  };
  const timer = setInterval(sample, 50);
  return { rank0, signals, stop: () => clearInterval(timer) };
}

describe("elastic training on the kubernetes back end through Kueue", () => {
  it("grows into freed GPUs step by step, shrinks gracefully when Kueue preempts its steps, keeps its base", async () => {
    await submit(fixedYaml(B1, 3, "training-priority"));
    await wait("B1 running", () => live(B1)?.phase === "Running", 180_000);
    const samples = sampler();
    try {
      await submit(elasticYaml());
      await runningAt(1, 3);
      expect(live(A)?.elastic).toMatchObject({ min: 1, max: 4 });
      // Its steps wait in Kueue while B1 holds the GPUs they would borrow.
      const uid = (await backend.getJob(A))?.uid ?? "";
      await wait("A's steps asked for", async () => (await workloadsOf(A, uid)).length > 1, 30_000);
      expect(await admittedSteps(uid)).toEqual([]);
      expect(live(A)?.admission).toMatchObject({ state: "Admitted" });
      expect(live(B1)?.phase).toBe("Running");

      // B1 is deleted: A's step Workloads are admitted on B's idle GPUs and A grows to 4.
      await env.custom.deleteNamespacedCustomObject({ ...JOB_API, ...B1 });
      await runningAt(4, rank0Step());
      expect(await podNames(A)).toHaveLength(4);
      expect(await admittedSteps(uid)).toEqual([2, 3, 4]);

      // A higher-priority job of team B needs 8 GPUs: Kueue preempts A's steps, A shrinks gracefully to 2.
      await submit(fixedYaml(B2, 2, "inference-priority"));
      await wait("B2 running", () => live(B2)?.phase === "Running", 240_000);
      await runningAt(2, rank0Step());
      expect(await podNames(A)).toHaveLength(2);
      expect(await admittedSteps(uid)).toEqual([2]);
      const base = await readBase(uid);
      expect(isTrue(base, "Admitted")).toBe(true);
      expect(conditionOf(base, "Evicted")?.status).not.toBe("True");
      expect(live(A)?.admission).toMatchObject({ state: "Admitted" });
    } finally {
      samples.stop();
    }

    const backwards = samples.rank0.filter((step, i) => i > 0 && step < (samples.rank0[i - 1] ?? 0));
    expect(backwards).toEqual([]);
    expect(samples.rank0.at(-1) ?? 0).toBeGreaterThan(samples.rank0[0] ?? 0);
    expect([...samples.signals]).not.toContain("SIGKILL");
    expect(live(A)?.restartCount).toBe(0); // a scaling is not a fault
    const events = await backend.listEvents(A);
    const scaled = events.filter((e) => e.reason === "Scaled").map((e) => e.message.split(" (")[0]);
    // Up to 4 (at once, or through a smaller size while Kueue admitted the steps), down to 2 at last (Kueue
    // may take steps 2 and 3 of the same second and leave 4: the job then drops to 1 and grows back to 2).
    expect(scaled.filter((line) => line?.endsWith("to 4 replicas"))).toHaveLength(1);
    expect(scaled.at(-1)).toMatch(/^Scaled from [1-4] to 2 replicas$/);
  }, 900_000);

  it("runs the partial-preemption shape: the low-priority elastic pods go, the base stays", async () => {
    for (const ref of [A, B2]) await env.custom.deleteNamespacedCustomObject({ ...JOB_API, ...ref });
    await wait(
      "A and B2 gone",
      async () => (await podNames(A)).length + (await podNames(B2)).length === 0,
      120_000,
    );

    await submit(partialJob());
    await runningAt(4, 3, P); // all 16 GPUs idle: the base and three elastic steps
    const uid = (await backend.getJob(P))?.uid ?? "";
    expect((await readBase(uid, P)).spec).toMatchObject({
      priorityClassName: "inference-priority",
      priority: 100,
      podSets: [
        { name: "base", count: 1 },
        { name: "elastic", count: 0 },
      ],
    });
    const steps = (await workloadsOf(P, uid)).filter((w) => sizeOf(w) !== null);
    expect(
      steps.map((w) => [w.spec.priorityClassName, w.spec.priority, w.spec.podSets.map((set) => set.name)]),
    ).toEqual([
      ["low-priority", 9, ["elastic"]],
      ["low-priority", 9, ["elastic"]],
      ["low-priority", 9, ["elastic"]],
    ]);
    expect((await podNames(P)).sort()).toEqual([
      "p-partial-base-0",
      "p-partial-elastic-0",
      "p-partial-elastic-1",
      "p-partial-elastic-2",
    ]);

    // Team B reclaims 8 of the 12 GPUs P borrowed (a training job, below P's base, above its elastic pods).
    await submit(fixedYaml(M, 2, "training-priority"));
    await wait("M running", () => live(M)?.phase === "Running", 240_000);
    await runningAt(2, 0, P);
    expect((await podNames(P)).sort()).toEqual(["p-partial-base-0", "p-partial-elastic-0"]);
    const base = await readBase(uid, P);
    expect(isTrue(base, "Admitted") && conditionOf(base, "Evicted")?.status !== "True").toBe(true);
    expect(live(P)?.restartCount).toBe(0);
  }, 900_000);
});

type Listed = { items?: WorkloadObject[] };

/** The job's Workloads (this run's when `uid` is given), not being deleted. */
async function workloadsOf(ref: JobRef, uid?: string): Promise<WorkloadObject[]> {
  const list = (await env.custom.listNamespacedCustomObject({
    group: "kueue.x-k8s.io",
    version: "v1beta1",
    plural: "workloads",
    namespace: ref.namespace,
  })) as Listed;
  return (list.items ?? []).filter(
    (w) =>
      !w.metadata.deletionTimestamp &&
      w.metadata.ownerReferences?.some((owner) => (uid ? owner.uid === uid : owner.name === ref.name)),
  );
}

/** The sizes of the job's admitted step Workloads, ascending (steps asked for beyond them may wait). */
async function admittedSteps(uid: string, ref: JobRef = A): Promise<number[]> {
  return (await workloadsOf(ref, uid))
    .filter((w) => isTrue(w, "Admitted") && conditionOf(w, "Evicted")?.status !== "True")
    .map((w) => sizeOf(w))
    .filter((size): size is number => size !== null)
    .sort((a, b) => a - b);
}

async function readBase(uid: string, ref: JobRef = A): Promise<WorkloadObject> {
  return (await env.read(
    "workloads",
    workloadName({ name: ref.name, uid }),
    ref.namespace,
  )) as WorkloadObject;
}
