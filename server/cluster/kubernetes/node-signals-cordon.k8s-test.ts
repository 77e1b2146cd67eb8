import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { CustomObjectsApi, PatchStrategy, setHeaderOptions, type V1Pod } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import type { JobRef } from "@/server/cluster/types";
import { createDb, type Db } from "@/server/db/client";
import { JOB_GROUP, JOB_PLURAL, JOB_VERSION } from "@/server/domain/job-spec/job-spec.schema";
import { createLogger } from "@/server/log";
import { type NodeSignalFeed, startOperatorNodeSignals } from "@/server/operator/node-signals";
import { demoJobYaml } from "@/server/operator/testing/jobs";
import { setCordonMovesPods } from "@/server/services/node-signals/mutations";
import { readNodeSignals } from "@/server/store/node-signals/queries";
import { listRestartEvents } from "@/server/store/restart-events/queries";
import { createSeededTestDatabase } from "@/test/database";
import { LABEL_JOB } from "./objects";
import { type KubeEnv, REPO_ROOT, startKubeEnv, waitUntil } from "./testing/kube-env";
import { type KubeOperator, startKubeOperator } from "./testing/kube-operator";
import { type PodAgents, startPodAgents } from "./testing/pod-agents";

/**
 * The cordon setting end to end, on a real kube-apiserver + KWOK, real Postgres and real agents: with the
 * table as shipped a cordon alone moves no pod (Kubernetes' meaning); a cluster admin turns "a cordon alone
 * moves running pods" on (the service the console calls), and the running operator, through its node-signal
 * feed, replaces the pod on the cordoned node onto another node, without a restart of the operator.
 */
const NAMESPACE = "hyperpod-ns-cordon-setting";
const NODES = ["kwok-node-0", "kwok-node-1", "kwok-node-2"];
const JOB_API = { group: JOB_GROUP, version: JOB_VERSION, plural: JOB_PLURAL };
const MERGE = setHeaderOptions("Content-Type", PatchStrategy.MergePatch);
const log = createLogger({ service: "cordon-setting-it" });

let database: { url: string; drop: () => Promise<void> };
let db: Db;
let env: KubeEnv;
let agents: PodAgents;
let agentDir: string;
let feed: NodeSignalFeed;
let operator: KubeOperator;
const ref: JobRef = { namespace: NAMESPACE, name: "cordon" };

function allRunning() {
  const live = operator.live(ref);
  return live?.phase === "Running" && live.ranksRunning === 4 && live.recovery === null ? live : null;
}

async function jobPods(): Promise<V1Pod[]> {
  const { items } = await env.core.listNamespacedPod({
    namespace: NAMESPACE,
    labelSelector: `${LABEL_JOB}=${ref.name}`,
  });
  return items
    .filter((pod) => !pod.metadata?.deletionTimestamp)
    .sort((a, b) => (a.metadata?.name ?? "").localeCompare(b.metadata?.name ?? ""));
}

const restarts = () => listRestartEvents(db, { namespace: NAMESPACE, jobName: ref.name });

beforeAll(async () => {
  database = await createSeededTestDatabase("it_cordon_setting");
  db = createDb(database.url);
  env = await startKubeEnv({ nodes: NODES, gpusPerNode: 4, namespaces: [NAMESPACE, "rebound-system"] });
  agentDir = await mkdtemp(path.join(tmpdir(), "rebound-cordon-setting-"));
  agents = await startPodAgents({ kubeConfig: env.kubeConfig, repoRoot: REPO_ROOT, dataDir: agentDir, log });
  feed = await startOperatorNodeSignals({
    db,
    kubeConfig: env.kubeConfig,
    namespace: "rebound-system",
    log,
  });
  operator = await startKubeOperator({
    kubeConfig: env.kubeConfig,
    databaseUrl: database.url,
    config: { stopTimeoutSeconds: 5 },
    nodeSignals: feed,
    quiet: true,
  });
  const yaml = demoJobYaml({ name: ref.name, namespace: NAMESPACE, nodes: 2, ranks: 2, gpusPerPod: 4 });
  await env.kubeConfig
    .makeApiClient(CustomObjectsApi)
    .createNamespacedCustomObject({ ...JOB_API, namespace: NAMESPACE, body: parse(yaml) });
  await waitUntil("all 4 ranks running", allRunning, 60_000);
}, 600_000);

afterAll(async () => {
  feed?.stop();
  await operator?.stop().catch(() => undefined);
  agents?.stop();
  await env?.stop();
  await db?.$disconnect();
  await database?.drop();
  if (agentDir) await rm(agentDir, { recursive: true, force: true });
}, 60_000);

describe("a cordon alone moves running pods: a setting (default off)", () => {
  it("off, a cordon moves nothing; turned on by a cluster admin, the pod on the cordoned node is replaced", async () => {
    const before = await jobPods();
    const [first, second] = before;
    const cordoned = first?.spec?.nodeName ?? "";
    await env.core.patchNode({ name: cordoned, body: { spec: { unschedulable: true } } }, MERGE);
    await waitUntil("the cordon seen", async () => {
      const view = (await operator.backend.listNodes()).find((node) => node.name === cordoned);
      return view?.verdict?.action === "avoid";
    });
    // Several reconciles of the running job happen meanwhile (the node change wakes it, and it resyncs).
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(await restarts()).toHaveLength(0);
    expect((await jobPods()).map((pod) => pod.metadata?.uid)).toEqual(before.map((pod) => pod.metadata?.uid));

    const admin = await db.user.findUniqueOrThrow({ where: { email: "admin@rebound.local" } });
    const { version } = await readNodeSignals(db);
    const changedAt = Date.now();
    await setCordonMovesPods(db, { version, movesPods: true, actorId: admin.id });
    const event = await waitUntil(
      "the pod on the cordoned node replaced",
      async () => {
        const [row] = await restarts();
        return row && row.outcome !== "pending" ? row : null;
      },
      45_000,
    );
    expect(event).toMatchObject({ action: "POD_REPLACEMENT", outcome: "recovered", node: cordoned });
    await waitUntil("all ranks running again", allRunning, 45_000);
    const after = await jobPods();
    const moved = after.find((pod) => pod.metadata?.name === first?.metadata?.name);
    expect(moved?.metadata?.uid).not.toBe(first?.metadata?.uid);
    expect(moved?.spec?.nodeName).not.toBe(cordoned);
    expect(after.find((pod) => pod.metadata?.name === second?.metadata?.name)?.metadata?.uid).toBe(
      second?.metadata?.uid,
    );
    process.stdout.write(
      `cordon setting: change saved → pod replacement detected in ${event.detectedAt.getTime() - changedAt} ms\n`,
    );
  });
});
