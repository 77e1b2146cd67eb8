import {
  CoreV1Api,
  type CoreV1Event,
  CustomObjectsApi,
  type KubeConfig,
  type V1Node,
  type V1Pod,
} from "@kubernetes/client-node";
import { createCapacityIndex, createReservations } from "@/server/cluster/placement";
import type { ClusterBackend, JobRef } from "@/server/cluster/types";
import type { NodeSignalTable } from "@/server/domain/node-health/signal-table.schema";
import type { Logger } from "@/server/log";
import type { NodeMetricsFeed } from "@/server/metrics/node-metrics";
import type { Informer, KubeObject } from "./informer";
import { createJobServices } from "./job-service";
import { DEFAULT_AGENT_PORT, type JobObject } from "./objects";
import { createEventWatch } from "./watch/events";
import { createJobWatch } from "./watch/jobs";
import { createNodeWatch, type NodeSignalSource } from "./watch/nodes";
import { createPodWatch } from "./watch/pods";

export type { NodeSignalSource } from "./watch/nodes";

/**
 * The kubernetes back end: HyperPodPyTorchJob custom resources, real pods, real nodes. Reads come from
 * informer caches (jobs, pods, nodes, the jobs' events), never a request per call; writes go to the API
 * server (status through the status subresource with conflict retry) and into the cache at once.
 * `mode: "console"` only reads: no finalizers, no writes. Each kind it watches has its own module
 * (watch/jobs.ts, pods.ts, nodes.ts, events.ts); this one composes them with placement.
 */

export type KubernetesBackendOptions = {
  kubeConfig: KubeConfig;
  log: Logger;
  mode: "operator" | "console";
  agentPort?: number;
  /** Rendezvous port on rank 0's pod (torch's default). */
  masterPort?: number;
  informers?: { watchTimeoutSeconds?: number; stallMs?: number };
  clock?: () => number;
  /**
   * The node-signal table nodes are judged by (server/domain/node-health), or a source of it that may
   * change (the operator's: Postgres and a ConfigMap, server/operator/node-signals.ts); default: the shipped one.
   */
  nodeSignals?: NodeSignalTable | NodeSignalSource;
  /** Per-node metric facts (the DCGM exporter's, through Prometheus), started and stopped with the back end. */
  nodeMetrics?: NodeMetricsFeed;
  /** The operator's agent key (server/cluster/agent-credential.ts); absent: pods get no credential. */
  agentKey?: Buffer | null;
};

export type KubernetesBackend = ClusterBackend & {
  readonly kind: "kubernetes";
  rankOutput: NonNullable<ClusterBackend["rankOutput"]>;
  readonly informers: {
    jobs: Informer<JobObject & KubeObject>;
    pods: Informer<V1Pod & KubeObject>;
    nodes: Informer<V1Node & KubeObject>;
    events: Informer<CoreV1Event & KubeObject>;
  };
  /** The job objects as stored, including ones our schema rejects (console-only mode shows them). */
  rawJobs(): JobObject[];
};

export async function createKubernetesBackend(opts: KubernetesBackendOptions): Promise<KubernetesBackend> {
  const { kubeConfig, log } = opts;
  const clock = opts.clock ?? Date.now;
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const custom = kubeConfig.makeApiClient(CustomObjectsApi);
  const writer = opts.mode === "operator";
  const listeners = new Set<(ref: JobRef | null) => void>();
  const emit = (ref: JobRef | null) => {
    for (const listener of listeners) listener(ref);
  };
  const settings = { kubeConfig, log, ...opts.informers };

  const jobs = createJobWatch({ settings, custom, log, writer, emit });
  const pods = createPodWatch({
    settings,
    core,
    agentPort: opts.agentPort ?? DEFAULT_AGENT_PORT,
    agentKey: opts.agentKey ?? null,
    emit,
    onUsage: (node) => capacity.usageChanged(node),
  });
  const capacity = createCapacityIndex(() => pods.index.gpusInUse());
  const nodes = createNodeWatch({
    settings,
    core,
    clock,
    nodeSignals: opts.nodeSignals,
    nodeMetrics: opts.nodeMetrics,
    capacity,
    emit,
  });
  const events = createEventWatch({ settings, core, clock, writer, job: jobs.object });
  const services = createJobServices(core);
  const reservations = createReservations(pods.index.gpusInUse);
  const informers = [jobs.informer, pods.informer, nodes.informer, events.informer];

  // On a failed or unreachable node the kubelet cannot confirm a pod's end: it is deleted at once so its
  // replacement (same name) can be created; on a node whose pods may stay (healthy, cordoned, or degraded
  // with a grace period) the agent gets its graceful stop.
  const mustForceDelete = (pod: V1Pod | undefined) => {
    if (!pod || pod.status?.phase === "Failed") return true;
    return nodes.replaceNow(pod.spec?.nodeName);
  };

  return {
    kind: "kubernetes",
    agentCredential: pods.agentCredential,
    informers: { jobs: jobs.informer, pods: pods.informer, nodes: nodes.informer, events: events.informer },
    async start() {
      await Promise.all(informers.map((informer) => informer.start()));
      nodes.startFeeds();
    },
    async stop() {
      nodes.stopFeeds();
      for (const informer of informers) informer.stop();
    },
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    rawJobs: () => jobs.informer.list(),
    listJobs: async () => jobs.list(),
    getJob: jobs.get,
    updateJobStatus: jobs.updateStatus,
    setSuspended: jobs.setSuspended,
    updateJobObject: jobs.update,
    requestDeletion: jobs.requestDeletion,
    async finalizeDeletion(ref) {
      await services.remove(ref);
      await jobs.removeFinalizer(ref);
    },
    listPods: async (ref) => pods.jobPods(ref),
    createPod(input) {
      nodes.syncCapacity();
      const choose = (used: ReadonlyMap<string, number>) =>
        capacity.pick({
          used,
          gpus: input.gpus,
          avoid: input.avoidNodes,
          prefer: input.preferNode,
          instanceType: input.instanceType,
        });
      return reservations.pick(choose, input.gpus, async (node) => {
        await services.ensure(input.job);
        return pods.create(input, node);
      });
    },
    deletePod: (ref, name) => pods.delete(ref, name, mustForceDelete),
    listNodes: async () => nodes.list(),
    recordEvent: events.record,
    listEvents: async (ref) => events.list(ref),
    // torch.distributed's store listens on rank 0's pod; each pod has its own network namespace.
    async rendezvous(rank0) {
      const pod = pods.get(rank0.namespace, rank0.name);
      const addr = pod?.status?.podIP ?? `${rank0.name}.${rank0.job}.${rank0.namespace}.svc`;
      return { addr, port: String(opts.masterPort ?? 29500) };
    },
    podLogs: pods.logs,
    rankOutput: pods.rankOutput,
  };
}
