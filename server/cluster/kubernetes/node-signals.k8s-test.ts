import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { CustomObjectsApi, PatchStrategy, setHeaderOptions, type V1Pod } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { isNodeHealthy, type JobRef } from "@/server/cluster/types";
import { JOB_GROUP, JOB_PLURAL, JOB_VERSION } from "@/server/domain/job-spec/job-spec.schema";
import { DEFAULT_NODE_SIGNALS } from "@/server/domain/node-health/default-signals";
import { createLogger } from "@/server/log";
import { demoJobYaml } from "@/server/operator/testing/jobs";
import { listRestartEvents } from "@/server/services/restart-events/queries";
import { createSeededTestDatabase } from "@/test/database";
import { LABEL_JOB } from "./objects";
import { type KubeEnv, REPO_ROOT, startKubeEnv, waitUntil } from "./testing/kube-env";
import { type KubeOperator, startKubeOperator } from "./testing/kube-operator";
import { type PodAgents, startPodAgents } from "./testing/pod-agents";

/**
 * Node signals other than HyperPod's label, on a real kube-apiserver + KWOK: an NVSentinel condition, the
 * EKS agent's AcceleratedHardwareReady=False and a device plugin's allocatable drop on the node of one of
 * a job's pods replace that pod (only) on a healthy node; cleared, the node is healthy again; a cordon
 * alone moves nothing, and new pods keep off the cordoned node.
 */
const NAMESPACE = "hyperpod-ns-node-signals";
const NODES = ["kwok-node-0", "kwok-node-1", "kwok-node-2", "kwok-node-3"];
const JOB_API = { group: JOB_GROUP, version: JOB_VERSION, plural: JOB_PLURAL };
const GRACE_SECONDS = 1;
const log = createLogger({ service: "node-signals-it" });
const STRATEGIC = setHeaderOptions("Content-Type", PatchStrategy.StrategicMergePatch);
const MERGE = setHeaderOptions("Content-Type", PatchStrategy.MergePatch);

/** The shipped table with a short device-plugin grace period, so the test need not wait a minute. */
const TABLE = DEFAULT_NODE_SIGNALS.map((rule) =>
  rule.source === "device-plugin" ? { ...rule, graceSeconds: GRACE_SECONDS } : rule,
);

let database: { url: string; drop: () => Promise<void> };
let env: KubeEnv;
let agents: PodAgents;
let agentDir: string;
let operator: KubeOperator;
const ref: JobRef = { namespace: NAMESPACE, name: "signals" };

beforeAll(async () => {
  database = await createSeededTestDatabase("it_node_signals");
  env = await startKubeEnv({ nodes: NODES, gpusPerNode: 4, namespaces: [NAMESPACE] });
  agentDir = await mkdtemp(path.join(tmpdir(), "rebound-node-signals-"));
  agents = await startPodAgents({ kubeConfig: env.kubeConfig, repoRoot: REPO_ROOT, dataDir: agentDir, log });
  operator = await startKubeOperator({
    kubeConfig: env.kubeConfig,
    databaseUrl: database.url,
    config: { stopTimeoutSeconds: 5 },
    nodeSignals: TABLE,
    quiet: true,
  });
  const yaml = demoJobYaml({ name: ref.name, namespace: NAMESPACE, nodes: 2, ranks: 4, gpusPerPod: 4 });
  await env.kubeConfig
    .makeApiClient(CustomObjectsApi)
    .createNamespacedCustomObject({ ...JOB_API, namespace: NAMESPACE, body: parse(yaml) });
  await waitUntil("all 8 ranks running", allRunning, 60_000);
}, 600_000);

afterAll(async () => {
  await operator?.stop().catch(() => undefined);
  agents?.stop();
  await env?.stop();
  await database?.drop();
  if (agentDir) await rm(agentDir, { recursive: true, force: true });
}, 60_000);

function allRunning() {
  const live = operator.live(ref);
  return live?.phase === "Running" && live.ranksRunning === 8 && live.recovery === null ? live : null;
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

const restarts = async () =>
  (await listRestartEvents(operator.db, { namespace: NAMESPACE, jobName: ref.name })).length;

async function settledRestart(count: number) {
  return waitUntil(
    `restart #${count} to settle`,
    async () => {
      const events = await listRestartEvents(operator.db, { namespace: NAMESPACE, jobName: ref.name });
      const event = events[count - 1];
      return event && event.outcome !== "pending" ? event : null;
    },
    45_000,
  );
}

const patchStatus = (node: string, status: object) =>
  env.core.patchNodeStatus({ name: node, body: { status } }, STRATEGIC);

const condition = (type: string, status: string, reason: string, message: string) => ({
  conditions: [{ type, status, reason, message, lastTransitionTime: new Date().toISOString() }],
});

const cordon = (node: string, unschedulable: boolean) =>
  env.core.patchNode({ name: node, body: { spec: { unschedulable } } }, MERGE);

async function seenHealthy(node: string, healthy: boolean) {
  await waitUntil(`${node} to be seen ${healthy ? "healthy" : "unhealthy"}`, async () => {
    const view = (await operator.backend.listNodes()).find((candidate) => candidate.name === node);
    return view && isNodeHealthy(view) === healthy;
  });
}

async function nodeFaultMessages(): Promise<string[]> {
  const { items } = await env.core.listNamespacedEvent({
    namespace: NAMESPACE,
    fieldSelector: `involvedObject.name=${ref.name}`,
  });
  return items.filter((item) => item.reason === "NodeFault").map((item) => item.message ?? "");
}

type Signal = {
  what: string;
  set(node: string): Promise<unknown>;
  clear(node: string): Promise<unknown>;
  /** How the NodeFault event names the source. */
  names: string;
};

const SIGNALS: Signal[] = [
  {
    what: "an NVSentinel GpuMemWatch condition",
    set: (node) =>
      patchStatus(
        node,
        condition(
          "GpuMemWatch",
          "True",
          "GpuMemWatchIsNotHealthy",
          "ErrorCode:DCGM_FR_VOLATILE_DBE_DETECTED GPU:0 Volatile DBE Recommended Action=COMPONENT_RESET;",
        ),
      ),
    clear: (node) =>
      patchStatus(node, condition("GpuMemWatch", "False", "GpuMemWatchIsHealthy", "No Health Failures")),
    names: "NVSentinel: GpuMemWatch — ErrorCode:DCGM_FR_VOLATILE_DBE_DETECTED GPU:0",
  },
  {
    what: "EKS AcceleratedHardwareReady=False with NvidiaXID79Error",
    set: (node) =>
      patchStatus(
        node,
        condition("AcceleratedHardwareReady", "False", "NvidiaXID79Error", "GPU fell off the bus"),
      ),
    clear: (node) =>
      patchStatus(
        node,
        condition("AcceleratedHardwareReady", "True", "NvidiaAcceleratedHardwareIsReady", ""),
      ),
    names: "EKS: AcceleratedHardwareReady=False (NvidiaXID79Error) — GPU fell off the bus",
  },
  {
    what: "a device plugin's allocatable GPUs below capacity, after its grace period",
    set: (node) => patchStatus(node, { allocatable: { "nvidia.com/gpu": "3" } }),
    clear: (node) => patchStatus(node, { allocatable: { "nvidia.com/gpu": "4" } }),
    names: "NVIDIA device plugin: 3 of 4 nvidia.com/gpu allocatable",
  },
];

describe("node signals on the kubernetes back end", () => {
  it.each(SIGNALS.map((signal, index) => [signal.what, signal, index] as const))(
    "%s replaces only the pod on that node, onto a healthy node; cleared, the node is healthy again",
    async (_what, signal, index) => {
      const before = await jobPods();
      const target = before[index % 2];
      const other = before[(index + 1) % 2];
      const badNode = target?.spec?.nodeName ?? "";
      const count = (await restarts()) + 1;
      const setAt = Date.now();
      await signal.set(badNode);
      const event = await settledRestart(count);
      expect(event).toMatchObject({
        action: "POD_REPLACEMENT",
        outcome: "recovered",
        node: badNode,
        faultReason: "NodeFault",
      });
      if (signal.what.includes("grace"))
        expect(event.faultAt.getTime()).toBeGreaterThanOrEqual(setAt + GRACE_SECONDS * 1000 - 50);
      await waitUntil("all ranks running again", allRunning);
      const after = await jobPods();
      const replaced = after.find((pod) => pod.metadata?.name === target?.metadata?.name);
      const kept = after.find((pod) => pod.metadata?.name === other?.metadata?.name);
      expect(kept?.metadata?.uid).toBe(other?.metadata?.uid);
      expect(replaced?.metadata?.uid).not.toBe(target?.metadata?.uid);
      expect(replaced?.spec?.nodeName).not.toBe(badNode);
      expect(NODES).toContain(replaced?.spec?.nodeName);
      expect(await nodeFaultMessages()).toContainEqual(
        expect.stringContaining(`Found unhealthy node ${badNode} (${signal.names}`),
      );
      await signal.clear(badNode);
      await seenHealthy(badNode, true);
    },
  );

  it("a cordon alone moves no pod; new pods keep off the cordoned node", async () => {
    const before = await jobPods();
    const used = new Set(before.map((pod) => pod.spec?.nodeName));
    const [freeA, freeB] = NODES.filter((node) => !used.has(node));
    const [first, second] = before;
    const firstNode = first?.spec?.nodeName ?? "";
    const count = await restarts();
    await cordon(firstNode, true);
    await cordon(freeA ?? "", true);
    await seenHealthy(firstNode, false);
    await seenHealthy(freeA ?? "", false);
    // Several reconciles of the running job happen meanwhile (a node change wakes it, and it resyncs).
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(await restarts()).toBe(count);
    expect((await jobPods()).map((pod) => pod.metadata?.uid)).toEqual(before.map((pod) => pod.metadata?.uid));

    // A fault on the other pod's node: its replacement goes to the one node neither cordoned nor faulty.
    const badNode = second?.spec?.nodeName ?? "";
    const [nvsentinel] = SIGNALS as [Signal];
    await nvsentinel.set(badNode);
    expect(await settledRestart(count + 1)).toMatchObject({ node: badNode, outcome: "recovered" });
    await waitUntil("all ranks running again", allRunning);
    const after = await jobPods();
    expect(after.find((pod) => pod.metadata?.name === second?.metadata?.name)?.spec?.nodeName).toBe(freeB);
    expect(after.find((pod) => pod.metadata?.name === first?.metadata?.name)?.metadata?.uid).toBe(
      first?.metadata?.uid,
    );
    await nvsentinel.clear(badNode);
    await cordon(firstNode, false);
    await cordon(freeA ?? "", false);
    for (const node of NODES) await seenHealthy(node, true);
  });
});
