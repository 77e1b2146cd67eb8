import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { ApiextensionsV1Api, CustomObjectsApi, type V1Pod } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { isAlive } from "@/server/cluster/local/process-tree";
import type { JobRef } from "@/server/cluster/types";
import { createDb } from "@/server/db/client";
import { FULL_JOB_YAML } from "@/server/domain/job-spec/job-spec.fixtures";
import { JOB_CRD_NAME, JOB_GROUP, JOB_PLURAL, JOB_VERSION } from "@/server/domain/job-spec/job-spec.schema";
import { parseJobYaml } from "@/server/domain/job-spec/parse-job";
import { createLogger } from "@/server/log";
import { demoJobYaml } from "@/server/operator/testing/jobs";
import { listPendingRestartEvents, listRestartEvents } from "@/server/store/restart-events/queries";
import { createSeededTestDatabase } from "@/test/database";
import { JOB_FINALIZER, LABEL_JOB } from "./objects";
import { type KubeEnv, REPO_ROOT, setNodeHealth, startKubeEnv, waitUntil } from "./testing/kube-env";
import { type KubeOperator, startKubeOperator } from "./testing/kube-operator";
import { type PodAgents, startPodAgents } from "./testing/pod-agents";

/**
 * The kubernetes back end against a real kube-apiserver (+ etcd + KWOK, e2e/kube): our CRD, real pods
 * owned by the job, real agents (local processes standing in for the containers KWOK does not run), the
 * operator's recovery, a restart mid-recovery, two replicas behind a Lease, and deletion.
 */
const NAMESPACE = "hyperpod-ns-llm-research";
const NODES = ["kwok-node-0", "kwok-node-1", "kwok-node-2", "kwok-node-3"];
const JOB_API = { group: JOB_GROUP, version: JOB_VERSION, plural: JOB_PLURAL };
const log = createLogger({ service: "kubernetes-it" });

let database: { url: string; drop: () => Promise<void> };
let env: KubeEnv;
let agents: PodAgents;
let agentDir: string;
let custom: CustomObjectsApi;
const operators: KubeOperator[] = [];

beforeAll(async () => {
  database = await createSeededTestDatabase("it_kubernetes");
  env = await startKubeEnv({ nodes: NODES, gpusPerNode: 4, namespaces: [NAMESPACE, "rebound-system"] });
  custom = env.kubeConfig.makeApiClient(CustomObjectsApi);
  agentDir = await mkdtemp(path.join(tmpdir(), "rebound-kube-agents-"));
  agents = await startPodAgents({ kubeConfig: env.kubeConfig, repoRoot: REPO_ROOT, dataDir: agentDir, log });
}, 600_000);

afterAll(async () => {
  for (const operator of operators) await operator.stop().catch(() => undefined);
  // Every restart of the suite is over (the job is deleted last), so none of its rows may stay pending.
  const db = database ? createDb(database.url) : null;
  const pending = db ? await listPendingRestartEvents(db).finally(() => db.$disconnect()) : [];
  agents?.stop();
  await env?.stop();
  await database?.drop();
  if (agentDir) await rm(agentDir, { recursive: true, force: true });
  expect(pending).toEqual([]);
}, 60_000);

async function startOperator(name: string, extra: Partial<Parameters<typeof startKubeOperator>[0]> = {}) {
  const operator = await startKubeOperator({
    kubeConfig: env.kubeConfig,
    databaseUrl: database.url,
    name,
    config: { stopTimeoutSeconds: 5 },
    quiet: true,
    ...extra,
  });
  operators.push(operator);
  return operator;
}

async function retire(operator: KubeOperator, how: "stop" | "kill") {
  await operator[how]();
  operators.splice(operators.indexOf(operator), 1);
}

async function createJob(yaml: string) {
  const body = parse(yaml) as { metadata: { name: string; namespace: string } };
  return (await custom.createNamespacedCustomObject({
    ...JOB_API,
    namespace: body.metadata.namespace,
    body,
  })) as {
    metadata: { uid: string; name: string };
  };
}

const getJob = (ref: JobRef) =>
  custom.getNamespacedCustomObject({ ...JOB_API, ...ref }) as Promise<{
    metadata: { uid: string; finalizers?: string[] };
    spec: unknown;
    status?: {
      restartCount?: number;
      conditions?: Array<{ type: string; status: string; message?: string }>;
    };
  }>;

async function jobPods(ref: JobRef): Promise<V1Pod[]> {
  const { items } = await env.core.listNamespacedPod({
    namespace: ref.namespace,
    labelSelector: `${LABEL_JOB}=${ref.name}`,
  });
  return items
    .filter((pod) => !pod.metadata?.deletionTimestamp)
    .sort((a, b) => (a.metadata?.name ?? "").localeCompare(b.metadata?.name ?? ""));
}

const uids = (pods: V1Pod[]) => pods.map((pod) => pod.metadata?.uid);

function allRunning(operator: KubeOperator, ref: JobRef, ranks: number) {
  return () => {
    const live = operator.live(ref);
    return live?.phase === "Running" && live.ranksRunning === ranks && live.recovery === null ? live : null;
  };
}

async function restartEvent(operator: KubeOperator, ref: JobRef, count: number) {
  return waitUntil(
    `restart event #${count} to settle`,
    async () => {
      const events = await listRestartEvents(operator.db, { namespace: ref.namespace, jobName: ref.name });
      const event = events[count - 1];
      return event && event.outcome !== "pending" ? event : null;
    },
    45_000,
    () => explainJob(operator, ref),
  );
}

/** The job as the operator and the apiserver see it, for a timed-out wait's error. */
async function explainJob(operator: KubeOperator, ref: JobRef): Promise<string> {
  const events = await listRestartEvents(operator.db, { namespace: ref.namespace, jobName: ref.name });
  const live = operator.live(ref);
  const pods = (await jobPods(ref)).map(
    (pod) => `${pod.metadata?.name}@${pod.spec?.nodeName}:${pod.status?.phase}`,
  );
  return [
    `restart events ${events.map((event) => `${event.action}/${event.faultReason}/${event.outcome}`).join(", ")}`,
    `live ${live?.phase} ranks ${live?.ranksRunning} recovery ${JSON.stringify(live?.recovery ?? null)}`,
    `pods ${pods.join(", ")}`,
  ].join("; ");
}

function rankPid(operator: KubeOperator, ref: JobRef, rank: number): number {
  const pid = operator
    .live(ref)
    ?.pods.flatMap((pod) => pod.ranks)
    .find((candidate) => candidate.rank === rank)?.pid;
  if (!pid) throw new Error(`rank ${rank} has no pid`);
  return pid;
}

describe("CRD on a real apiserver", () => {
  it("is established with our names, status subresource and printer columns", async () => {
    const crd = await env.kubeConfig
      .makeApiClient(ApiextensionsV1Api)
      .readCustomResourceDefinition({ name: JOB_CRD_NAME });
    expect(crd.spec.names).toMatchObject({
      kind: "HyperPodPyTorchJob",
      plural: "hyperpodpytorchjobs",
      shortNames: ["hpj"],
    });
    const version = crd.spec.versions[0];
    expect(version?.subresources?.status).toEqual({});
    expect(version?.additionalPrinterColumns?.map((column) => column.name)).toEqual(
      expect.arrayContaining(["Status", "Age"]),
    );
  });

  it("round-trips a job with every spec field", async () => {
    const parsed = parseJobYaml(FULL_JOB_YAML);
    if (!parsed.ok) throw new Error("fixture does not parse");
    const body = {
      ...parsed.job,
      metadata: { ...parsed.job.metadata, name: "full-job", namespace: NAMESPACE },
      spec: { ...parsed.job.spec, runPolicy: { ...parsed.job.spec.runPolicy, suspend: true } },
    };
    await custom.createNamespacedCustomObject({ ...JOB_API, namespace: NAMESPACE, body });
    const stored = await getJob({ namespace: NAMESPACE, name: "full-job" });
    expect(stored.spec).toEqual(body.spec);
    await custom.deleteNamespacedCustomObject({ ...JOB_API, namespace: NAMESPACE, name: "full-job" });
  });

  it.each([
    ["a bad enum", "cleanPodPolicy: All", "cleanPodPolicy: Sometimes", "spec.runPolicy.cleanPodPolicy"],
    ["a wrong type", "replicas: 2", "replicas: two", "spec.replicaSpecs[0].replicas"],
  ])("rejects %s with the field's path, storing nothing", async (_what, from, to, field) => {
    const yaml = demoJobYaml({ name: "invalid-job", nodes: 2, ranks: 4 }).replace(
      "jobMaxRetryCount: 100",
      `jobMaxRetryCount: 100\n    ${from}`,
    );
    const bad = yaml.replace(from, to);
    expect(bad).not.toEqual(yaml);
    const error = await createJob(bad).then(
      () => null,
      (caught: unknown) => caught as { code: number; body: string },
    );
    expect(error?.code).toBe(422);
    expect(String(error?.body)).toContain(field);
    const { items } = (await custom.listNamespacedCustomObject({ ...JOB_API, namespace: NAMESPACE })) as {
      items: unknown[];
    };
    expect(items).toHaveLength(0);
  });
});

describe("operator on the kubernetes back end", () => {
  const ref = { namespace: NAMESPACE, name: "kube-demo" };
  let operator: KubeOperator;
  let jobUid: string;

  it("creates the job's pods, owned and labelled, and runs every rank", async () => {
    operator = await startOperator("operator-a");
    jobUid = (await createJob(demoJobYaml({ name: ref.name, nodes: 2, ranks: 4, gpusPerPod: 4 }))).metadata
      .uid;
    await waitUntil("all 8 ranks running", allRunning(operator, ref, 8), 60_000);
    const pods = await jobPods(ref);
    expect(pods.map((pod) => pod.metadata?.name)).toEqual(["kube-demo-workers-0", "kube-demo-workers-1"]);
    for (const pod of pods) {
      expect(pod.metadata?.ownerReferences).toEqual([
        expect.objectContaining({ kind: "HyperPodPyTorchJob", uid: jobUid, controller: true }),
      ]);
      expect(pod.metadata?.labels?.[LABEL_JOB]).toBe(ref.name);
      expect(NODES).toContain(pod.spec?.nodeName);
    }
    expect(new Set(pods.map((pod) => pod.spec?.nodeName)).size).toBe(2);
    const service = await env.core.readNamespacedService({ ...ref });
    expect(service.spec?.clusterIP).toBe("None");
    const job = await getJob(ref);
    expect(job.metadata.finalizers).toContain(JOB_FINALIZER);
    expect(job.status?.conditions).toEqual(
      expect.arrayContaining([expect.objectContaining({ type: "Running", status: "True" })]),
    );
  });

  it("restarts processes in place after a rank crashes (PLR), keeping the pods", async () => {
    const before = uids(await jobPods(ref));
    process.kill(rankPid(operator, ref, 5), "SIGKILL");
    const event = await restartEvent(operator, ref, 1);
    expect(event).toMatchObject({ action: "PLR", outcome: "recovered", faultReason: "WorkerCrash" });
    await waitUntil("all ranks running again", allRunning(operator, ref, 8), 30_000, () =>
      explainJob(operator, ref),
    );
    expect(uids(await jobPods(ref))).toEqual(before);
    const job = await getJob(ref);
    expect(job.status?.restartCount).toBe(1);
    expect(job.status?.conditions?.find((condition) => condition.type === "Running")?.message).toMatch(
      /^The fault of reason WorkerCrash was remediated in \d+ milliseconds\.$/,
    );
    const { items } = await env.core.listNamespacedEvent({
      namespace: NAMESPACE,
      fieldSelector: `involvedObject.name=${ref.name}`,
    });
    expect(items.map((item) => item.reason)).toContain("WorkerCrash");
  });

  it("replaces only the pod of a node marked UnschedulablePendingReboot, onto a healthy node", async () => {
    const [first, second] = await jobPods(ref);
    const badNode = second?.spec?.nodeName ?? "";
    await setNodeHealth(env.core, badNode, "UnschedulablePendingReboot");
    const event = await restartEvent(operator, ref, 2);
    expect(event).toMatchObject({
      action: "POD_REPLACEMENT",
      outcome: "recovered",
      node: badNode,
      faultReason: "NodeFault",
    });
    await waitUntil("all ranks running again", allRunning(operator, ref, 8), 30_000, () =>
      explainJob(operator, ref),
    );
    const [firstAfter, secondAfter] = await jobPods(ref);
    expect(firstAfter?.metadata?.uid).toBe(first?.metadata?.uid);
    expect(secondAfter?.metadata?.name).toBe(second?.metadata?.name);
    expect(secondAfter?.metadata?.uid).not.toBe(second?.metadata?.uid);
    expect(secondAfter?.spec?.nodeName).not.toBe(badNode);
    await setNodeHealth(env.core, badNode, "Schedulable");
  });

  it("survives being killed mid-recovery: one recovery, no duplicate pods", async () => {
    const before = uids(await jobPods(ref));
    const restarts = (await getJob(ref)).status?.restartCount ?? 0;
    // Die between stopping the agents and starting them again: the first /start is where the operator stops.
    // It never sends that /start: every call fails as if the process were gone.
    let died = false;
    operator.deps.agents.start = async () => {
      if (!died) {
        died = true;
        void retire(operator, "kill");
      }
      return { ok: false, error: { cause: "unreachable", detail: "the operator died" } };
    };
    process.kill(rankPid(operator, ref, 2), "SIGKILL");
    await waitUntil("the operator to die mid-recovery", () => died && !operators.includes(operator));
    operator = await startOperator("operator-b");
    const event = await restartEvent(operator, ref, 3);
    expect(event).toMatchObject({ action: "PLR", outcome: "recovered" });
    await waitUntil("all ranks running again", allRunning(operator, ref, 8), 30_000, () =>
      explainJob(operator, ref),
    );
    const events = await listRestartEvents(operator.db, { namespace: ref.namespace, jobName: ref.name });
    expect(events).toHaveLength(3);
    expect(uids(await jobPods(ref))).toEqual(before);
    expect((await getJob(ref)).status?.restartCount).toBe(restarts + 1);
  });

  it("with two replicas, only the Lease holder acts; the other takes over when it dies", async () => {
    await retire(operator, "stop");
    const election = { namespace: "rebound-system", leaseDurationSeconds: 2 };
    const a = await startOperator("replica-a", { leaderElection: election });
    const b = await startOperator("replica-b", { leaderElection: election });
    const leader = await waitUntil("a leader", () =>
      a.election?.leading ? a : b.election?.leading ? b : null,
    );
    const follower = leader === a ? b : a;
    await waitUntil("the leader to see all ranks running", allRunning(leader, ref, 8));
    process.kill(rankPid(leader, ref, 0), "SIGKILL");
    expect(await restartEvent(leader, ref, 4)).toMatchObject({ action: "PLR", outcome: "recovered" });
    expect(await follower.reconciles()).toBe(0);
    expect(follower.election?.leading).toBe(false);

    await retire(leader, "kill");
    await waitUntil("the follower to take the lease", () => follower.election?.leading, 10_000);
    await waitUntil("the new leader to see all ranks running", allRunning(follower, ref, 8), 20_000);
    process.kill(rankPid(follower, ref, 7), "SIGKILL");
    expect(await restartEvent(follower, ref, 5)).toMatchObject({ action: "PLR", outcome: "recovered" });
    operator = follower;
  });

  it("deleting the job removes its pods, its Service and then the job (finalizer)", async () => {
    const pids = (await jobPods(ref)).map((pod) => agents.pidOf(NAMESPACE, pod.metadata?.name ?? ""));
    expect(pids.every((pid) => pid !== null)).toBe(true);
    await custom.deleteNamespacedCustomObject({ ...JOB_API, ...ref });
    await waitUntil("the job to be gone", async () =>
      getJob(ref).then(
        () => false,
        (error: { code?: number }) => error.code === 404,
      ),
    );
    expect(await jobPods(ref)).toEqual([]);
    await expect(env.core.readNamespacedService({ ...ref })).rejects.toMatchObject({ code: 404 });
    await waitUntil("the agents to exit", () => pids.every((pid) => pid !== null && !isAlive(pid)));
  });
});
