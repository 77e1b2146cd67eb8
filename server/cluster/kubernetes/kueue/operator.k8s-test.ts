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
import { createKueueGate } from "@/server/operator/admission/kueue";
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
import { type KueueEnv, startKueueEnv } from "./kueue-env";
import { startKueueSync } from "./sync";
import { createKueueWorkloads } from "./workload-client";

/**
 * End to end on the kubernetes back end: the operator (its controller, the kubernetes back end, real agents
 * for the pods KWOK does not run) with Kueue's gate, and the real Kueue deciding. Team B's job borrows team A's
 * idle GPUs and runs; team A's job comes; Kueue preempts B's (InCohortReclamation); B's pods stop and go, A's
 * job runs; when A's job is deleted B's runs again.
 */
const NODES = ["kwok-node-0", "kwok-node-1", "kwok-node-2", "kwok-node-3"];
const GPU = "nvidia.com/gpu";
const log = createLogger({ service: "kueue-operator-it" });
const quiet = { ...log, info: () => undefined };
const JOB_API = { group: JOB_GROUP, version: JOB_VERSION, plural: JOB_PLURAL };

const config: GovernanceConfig = {
  teams: ["team-a", "team-b"].map((team) => ({
    team,
    active: true,
    guaranteed: { default: { [GPU]: team === "team-a" ? 8 : 4 } },
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
let database: { url: string; drop: () => Promise<void> };
let db: Db;
let agents: PodAgents;
let agentDir: string;
let backend: KubernetesBackend;
let deps: OperatorDeps;
let controller: Controller;

beforeAll(async () => {
  database = await createSeededTestDatabase("it_kueue_operator");
  db = createDb(database.url);
  env = await startKueueEnv({
    controller: true,
    jobCrd: true,
    fairSharing: false,
    nodes: NODES,
    gpusPerNode: 4,
  });
  agentDir = await mkdtemp(path.join(tmpdir(), "rebound-kueue-agents-"));
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
  // Wired as the operator wires it: the sync loop (from a fixed configuration here) stops with the gate.
  const sync = startKueueSync({
    load: async () => config,
    api: createKueueApi(env.operatorKubeConfig),
    log: quiet,
  });
  await sync.trigger();
  const admission = createKueueGate({
    workloads: createKueueWorkloads({ kubeConfig: env.operatorKubeConfig, log: quiet }),
    log: quiet,
    sync,
  });
  deps = createOperatorDeps({ backend, db, log: quiet, config: { stopTimeoutSeconds: 5 }, admission });
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

async function submit(team: string, name: string): Promise<JobRef> {
  const namespace = `hyperpod-ns-${team}`;
  const body = parse(
    demoJobYaml({ name, namespace, nodes: 2, ranks: 4, gpusPerPod: 4, gracefulSeconds: 5 }),
  ) as {
    metadata: { labels?: Record<string, string> };
  };
  body.metadata.labels = {
    ...body.metadata.labels,
    "kueue.x-k8s.io/queue-name": `${namespace}-localqueue`,
    "kueue.x-k8s.io/priority-class": "training-priority",
  };
  await env.custom.createNamespacedCustomObject({ ...JOB_API, namespace, body });
  return { namespace, name };
}

const live = (ref: JobRef) => deps.live.get(jobKey(ref));

const running = (ref: JobRef) =>
  waitUntil(
    `${ref.name} to run all its ranks`,
    () => {
      const job = live(ref);
      return job?.phase === "Running" && job.ranksRunning === 8 ? job : null;
    },
    90_000,
  );

async function podNames(ref: JobRef): Promise<string[]> {
  const { items } = await env.core.listNamespacedPod({
    namespace: ref.namespace,
    labelSelector: `${LABEL_JOB}=${ref.name}`,
  });
  return items.filter((pod) => !pod.metadata?.deletionTimestamp).map((pod) => pod.metadata?.name ?? "");
}

describe("the operator with Kueue on the kubernetes back end", () => {
  const b = { namespace: "hyperpod-ns-team-b", name: "b-train" };
  const a = { namespace: "hyperpod-ns-team-a", name: "a-train" };

  it("runs team B's job on GPUs borrowed from team A", async () => {
    await submit("team-b", b.name);
    const job = await running(b);
    expect(job.admission).toMatchObject({ state: "Admitted", flavor: "default" });
    expect(await podNames(b)).toHaveLength(2);
  });

  it("preempts B's job for team A's, which then runs; B's waits with the reason", async () => {
    await submit("team-a", a.name);
    await waitUntil(
      "B to be preempted",
      () => (live(b)?.admission?.state === "Preempting" ? true : null),
      30_000,
    );
    await running(a);
    const waiting = await waitUntil(
      "B to wait again",
      () => {
        const job = live(b);
        return job?.phase === "Pending" && job.admission?.state === "Preempted" ? job : null;
      },
      30_000,
    );
    expect(waiting.admission).toMatchObject({
      reason: "InCohortReclamation",
      preemptedBy: `${a.namespace}/${a.name}`,
    });
    expect(await podNames(b)).toEqual([]);
    expect(waiting.restartCount).toBe(0); // a preemption is not a fault
  });

  it("runs B's job again once A's is deleted", async () => {
    await env.custom.deleteNamespacedCustomObject({ ...JOB_API, ...a });
    await running(b);
    expect(live(b)?.admission).toMatchObject({ state: "Admitted" });
  });
});
