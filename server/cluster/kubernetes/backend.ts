import {
  CoreV1Api,
  type CoreV1Event,
  CustomObjectsApi,
  type KubeConfig,
  PatchStrategy,
  setHeaderOptions,
  type V1Node,
  type V1Pod,
} from "@kubernetes/client-node";
import { deriveAgentCredential } from "@/server/cluster/agent-credential";
import { requireName } from "@/server/cluster/names";
import { createCapacityIndex, createReservations } from "@/server/cluster/placement";
import type {
  ClusterBackend,
  ClusterJob,
  ClusterNode,
  ClusterPod,
  JobObjectUpdate,
  JobObjectUpdateResult,
  JobRef,
} from "@/server/cluster/types";
import { jobKey } from "@/server/cluster/types";
import {
  JOB_API_VERSION,
  JOB_GROUP,
  JOB_KIND,
  JOB_PLURAL,
  JOB_VERSION,
} from "@/server/domain/job-spec/job-spec.schema";
import type { JobStatus } from "@/server/domain/job-spec/job-status.schema";
import { DEFAULT_NODE_SIGNALS } from "@/server/domain/node-health/default-signals";
import type { NodeVerdict } from "@/server/domain/node-health/evaluate";
import type { NodeSignalTable } from "@/server/domain/node-health/signal-table.schema";
import type { Logger } from "@/server/log";
import type { NodeMetricsFeed } from "@/server/metrics/node-metrics";
import { createInformer, type Informer, type KubeObject, type ObjectList } from "./informer";
import {
  buildPod,
  DEFAULT_AGENT_PORT,
  JOB_FINALIZER,
  type JobObject,
  jobUpdatePatch,
  LABEL_JOB,
  nodeFingerprint,
  podName,
  toClusterEvent,
  toClusterJob,
  toClusterNode,
  toClusterPod,
} from "./objects";
import { createPodIndex } from "./pod-index";
import { type PodLogRead, rankOutputFromPodLog } from "./rank-output";

/**
 * The kubernetes back end: HyperPodPyTorchJob custom resources, real pods, real nodes. Reads come from
 * informer caches (jobs, pods, nodes, the jobs' events), never a request per call; writes go to the API
 * server (status through the status subresource with conflict retry) and into the cache at once.
 * `mode: "console"` only reads: no finalizers, no writes.
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

/** A node-signal table that may change while the back end runs: nodes are judged again on each change. */
export type NodeSignalSource = {
  current(): NodeSignalTable;
  onChange(listener: (table: NodeSignalTable) => void): () => void;
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

const CONFLICT_RETRIES = 5;
const JOB_API = { group: JOB_GROUP, version: JOB_VERSION, plural: JOB_PLURAL };
const MERGE_PATCH = setHeaderOptions("Content-Type", PatchStrategy.MergePatch);

const statusCode = (error: unknown): number | undefined => {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "number" ? code : undefined;
};

/** Ignores "already gone" (404) and, for creates, "already there" (409). */
async function tolerate(codes: number[], call: () => Promise<unknown>): Promise<void> {
  try {
    await call();
  } catch (error) {
    if (!codes.includes(statusCode(error) ?? 0)) throw error;
  }
}

/** The call's result, or "gone" when the API server answers 404. */
async function tolerateGone<T>(call: () => Promise<T>): Promise<T | "gone"> {
  try {
    return await call();
  } catch (error) {
    if (statusCode(error) === 404) return "gone";
    throw error;
  }
}

/** Runs `write` again (up to CONFLICT_RETRIES times) while the API server answers 409 Conflict. */
async function retryOnConflict(what: string, write: (attempt: number) => Promise<void>): Promise<void> {
  for (let attempt = 0; attempt < CONFLICT_RETRIES; attempt += 1) {
    try {
      return await write(attempt);
    } catch (error) {
      if (statusCode(error) !== 409) throw error;
    }
  }
  throw new Error(`${what}: still conflicting after ${CONFLICT_RETRIES} attempts`);
}

export async function createKubernetesBackend(opts: KubernetesBackendOptions): Promise<KubernetesBackend> {
  const { kubeConfig, log } = opts;
  const clock = opts.clock ?? Date.now;
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const custom = kubeConfig.makeApiClient(CustomObjectsApi);
  const agentPort = opts.agentPort ?? DEFAULT_AGENT_PORT;
  const writer = opts.mode === "operator";
  const listeners = new Set<(ref: JobRef | null) => void>();
  const emit = (ref: JobRef | null) => {
    for (const listener of listeners) listener(ref);
  };
  const nodeSeen = new Map<string, { fingerprint: string; changedAt: number; verdict?: NodeVerdict }>();
  const signalSource = Array.isArray(opts.nodeSignals)
    ? null
    : (opts.nodeSignals as NodeSignalSource | undefined);
  let nodeSignals =
    signalSource?.current() ?? (opts.nodeSignals as NodeSignalTable | undefined) ?? DEFAULT_NODE_SIGNALS;
  const servicesMade = new Map<string, Promise<void>>();
  const informerOptions = { kubeConfig, log, ...opts.informers };

  const jobs = createInformer<JobObject & KubeObject>({
    ...informerOptions,
    name: "jobs",
    watchPath: `/apis/${JOB_GROUP}/${JOB_VERSION}/${JOB_PLURAL}`,
    list: async () => (await custom.listClusterCustomObject(JOB_API)) as ObjectList<JobObject & KubeObject>,
    onEvent: (_type, object) =>
      emit(
        object ? { namespace: object.metadata?.namespace ?? "", name: object.metadata?.name ?? "" } : null,
      ),
  });
  // Every pod, not only the jobs': placement counts the GPUs that other pods hold on a node. Indexed by job
  // and GPUs per node as the store changes; each stored object is converted once (it is replaced, never
  // changed, when its resourceVersion moves).
  const podIndex = createPodIndex({ onUsage: (node) => capacity.usageChanged(node) });
  const capacity = createCapacityIndex(() => podIndex.gpusInUse());
  const podViews = new WeakMap<V1Pod, ClusterPod>();
  const agentKey = opts.agentKey ?? null;
  /** Each seen pod's agent URL → its credential; a pod IP given to a new pod replaces the old entry. */
  const credentialByUrl = new Map<string, string>();
  const podView = (pod: V1Pod): ClusterPod => {
    let view = podViews.get(pod);
    if (!view) {
      view = toClusterPod(pod, agentPort);
      podViews.set(pod, view);
      if (agentKey && view.agentUrl)
        credentialByUrl.set(view.agentUrl, deriveAgentCredential(agentKey, view));
    }
    return view;
  };
  /** listPods' answer per index list: the same array until one of the job's pods changes (pod-index.ts). */
  const podLists = new WeakMap<readonly V1Pod[], readonly ClusterPod[]>();
  const jobPodViews = (list: readonly V1Pod[]): readonly ClusterPod[] => {
    let views = podLists.get(list);
    if (!views) {
      views = Object.freeze(list.map(podView));
      podLists.set(list, views);
    }
    return views;
  };
  const pods = createInformer<V1Pod & KubeObject>({
    ...informerOptions,
    name: "pods",
    watchPath: "/api/v1/pods",
    list: () => core.listPodForAllNamespaces() as Promise<ObjectList<V1Pod & KubeObject>>,
    onStore: podIndex.onStore,
    onEvent: (_type, pod) => {
      const job = pod?.metadata?.labels?.[LABEL_JOB];
      if (job) emit({ namespace: pod.metadata?.namespace ?? "", name: job });
      else if (!pod) emit(null);
    },
  });
  // A node's view is made once per stored object; its changedAt moves only when its fingerprint does, and
  // each of its signals keeps the time it was first seen.
  let nodeViews = new WeakMap<V1Node, ClusterNode>();
  const makeNodeView = (node: V1Node): ClusterNode => {
    const name = node.metadata?.name ?? "";
    const seen = nodeSeen.get(name);
    const now = clock();
    const judged = {
      changedAt: seen?.changedAt ?? now,
      now,
      table: nodeSignals,
      previous: seen?.verdict,
      metrics: opts.nodeMetrics?.get(name),
    };
    const view = toClusterNode(node, judged);
    const fingerprint = nodeFingerprint(view);
    if (seen?.fingerprint === fingerprint) return view;
    const changedAt = seen ? now : view.changedAt;
    nodeSeen.set(name, { fingerprint, changedAt, verdict: view.verdict });
    return { ...view, changedAt };
  };
  const nodeView = (node: V1Node): ClusterNode => {
    let view = nodeViews.get(node);
    if (!view) {
      view = makeNodeView(node);
      nodeViews.set(node, view);
    }
    return view;
  };
  let nodeList: readonly ClusterNode[] | null = null;
  // Nodes changed since the capacity index last saw them (read at the next pick, after the event's handling).
  const nodesToPlace = new Set<string>();
  const syncCapacity = () => {
    for (const name of nodesToPlace) {
      const node = nodes.get(name);
      capacity.setNode(name, node ? nodeView(node) : undefined);
    }
    nodesToPlace.clear();
  };
  const nodes = createInformer<V1Node & KubeObject>({
    ...informerOptions,
    name: "nodes",
    watchPath: "/api/v1/nodes",
    list: () => core.listNode() as Promise<ObjectList<V1Node & KubeObject>>,
    onStore: (key) => {
      nodeList = null;
      nodesToPlace.add(key);
    },
    // Heartbeats change nodes every few seconds; only a change of health, readiness or GPUs wakes jobs.
    onEvent: (type, node) => {
      if (!node) return emit(null);
      const before = nodeSeen.get(node.metadata?.name ?? "")?.fingerprint;
      if (type === "DELETED") nodeSeen.delete(node.metadata?.name ?? "");
      else if (before === nodeFingerprint(nodeView(node))) return;
      emit(null);
    },
  });
  // New metric facts for some nodes: their views are judged again, and jobs woken when a verdict changed.
  const metricsChanged = (names: readonly string[]) => {
    let changed = false;
    for (const name of names) {
      const node = nodes.get(name);
      if (!node) continue;
      const before = nodeSeen.get(name)?.fingerprint;
      nodeViews.delete(node);
      nodeList = null;
      nodesToPlace.add(name);
      if (before !== nodeFingerprint(nodeView(node))) changed = true;
    }
    if (changed) emit(null);
  };
  let unsubscribeMetrics: (() => void) | null = null;
  // A new node-signal table: every node is judged again (views, capacity) and every job woken to act on it.
  const stopSignals = signalSource?.onChange((table) => {
    nodeSignals = table;
    nodeViews = new WeakMap();
    nodeList = null;
    for (const node of nodes.list()) nodesToPlace.add(node.metadata?.name ?? "");
    emit(null);
  });
  const eventSelector = { fieldSelector: `involvedObject.kind=${JOB_KIND}` };
  const events = createInformer<CoreV1Event & KubeObject>({
    ...informerOptions,
    name: "events",
    watchPath: "/api/v1/events",
    query: eventSelector,
    list: () =>
      core.listEventForAllNamespaces(eventSelector) as Promise<ObjectList<CoreV1Event & KubeObject>>,
  });

  const jobObject = (ref: JobRef) => jobs.get(jobKey(ref));

  const ensureFinalizer = async (object: JobObject) => {
    const finalizers = object.metadata?.finalizers ?? [];
    if (!writer || object.metadata?.deletionTimestamp || finalizers.includes(JOB_FINALIZER)) return;
    const patched = (await custom.patchNamespacedCustomObject(
      {
        ...JOB_API,
        namespace: object.metadata?.namespace ?? "",
        name: object.metadata?.name ?? "",
        body: {
          metadata: {
            finalizers: [...finalizers, JOB_FINALIZER],
            resourceVersion: object.metadata?.resourceVersion,
          },
        },
      },
      MERGE_PATCH,
    )) as JobObject & KubeObject;
    jobs.upsert(patched);
  };

  const toJob = (object: JobObject): ClusterJob | null => {
    const result = toClusterJob(object);
    if (result.ok) return result.job;
    log.warn("ignoring a job our schema rejects", {
      job: `${object.metadata?.namespace}/${object.metadata?.name}`,
      errors: result.errors.slice(0, 5),
    });
    return null;
  };

  /** Every node's view, rebuilt only after the node store changed: the same frozen array until then. */
  const listNodes = (): readonly ClusterNode[] => {
    nodeList ??= Object.freeze(nodes.list().map(nodeView));
    return nodeList;
  };
  const reservations = createReservations(podIndex.gpusInUse);

  // On a failed or unreachable node the kubelet cannot confirm a pod's end: it is deleted at once so its
  // replacement (same name) can be created; on a node whose pods may stay (healthy, cordoned, or degraded
  // with a grace period) the agent gets its graceful stop.
  const mustForceDelete = (pod: V1Pod | undefined) => {
    if (!pod || pod.status?.phase === "Failed") return true;
    const node = pod.spec?.nodeName ? nodes.get(pod.spec.nodeName) : undefined;
    return !node || nodeView(node).verdict?.action === "replace-now";
  };

  const createService = (job: ClusterJob) =>
    tolerate([409], () =>
      core.createNamespacedService({
        namespace: job.ref.namespace,
        body: {
          metadata: {
            name: job.ref.name,
            namespace: job.ref.namespace,
            labels: { [LABEL_JOB]: job.ref.name },
            ownerReferences: [
              {
                apiVersion: JOB_API_VERSION,
                kind: JOB_KIND,
                name: job.ref.name,
                uid: job.uid,
                controller: true,
              },
            ],
          },
          spec: {
            clusterIP: "None",
            selector: { [LABEL_JOB]: job.ref.name },
            publishNotReadyAddresses: true,
          },
        },
      }),
    );

  /** One create per job, however many of its pods are being created at the same time. */
  const ensureService = (job: ClusterJob): Promise<void> => {
    const key = jobKey(job.ref);
    let made = servicesMade.get(key);
    if (!made) {
      made = createService(job).then(() => undefined);
      servicesMade.set(key, made);
      // A failed create is tried again by the next pod.
      made.catch(() => servicesMade.delete(key));
    }
    return made;
  };

  const readJob = async (ref: JobRef): Promise<(JobObject & KubeObject) | null> => {
    try {
      return (await custom.getNamespacedCustomObject({ ...JOB_API, ...ref })) as JobObject & KubeObject;
    } catch (error) {
      if (statusCode(error) === 404) return null;
      throw error;
    }
  };

  // The cached object first; after a conflict, the API server's latest.
  const replaceStatus = (ref: JobRef, status: JobStatus) =>
    retryOnConflict(`status of ${jobKey(ref)}`, async (attempt) => {
      const object = (attempt === 0 ? jobObject(ref) : undefined) ?? (await readJob(ref));
      if (!object) return;
      const updated = await custom.replaceNamespacedCustomObjectStatus({
        ...JOB_API,
        ...ref,
        body: { ...object, status },
      });
      jobs.upsert(updated as JobObject & KubeObject);
    });

  const removeFinalizer = (ref: JobRef) =>
    retryOnConflict(`finalizer of ${jobKey(ref)}`, async () => {
      const metadata = (await readJob(ref))?.metadata;
      if (!metadata?.finalizers?.includes(JOB_FINALIZER)) return;
      const body = {
        metadata: {
          finalizers: metadata.finalizers.filter((name) => name !== JOB_FINALIZER),
          resourceVersion: metadata.resourceVersion,
        },
      };
      await tolerate([404], () =>
        custom.patchNamespacedCustomObject({ ...JOB_API, ...ref, body }, MERGE_PATCH),
      );
    });

  /** Patches with the version given; the API server's 409 comes back as null. */
  const patchAt = async (ref: JobRef, body: unknown): Promise<(JobObject & KubeObject) | null> => {
    try {
      return (await custom.patchNamespacedCustomObject(
        { ...JOB_API, ...ref, body },
        MERGE_PATCH,
      )) as JobObject & KubeObject;
    } catch (error) {
      if (statusCode(error) === 409) return null;
      throw error;
    }
  };

  /** The conflict when the caller's expected version is not the job's spec version now. */
  const staleVersion = (object: JobObject, update: JobObjectUpdate): JobObjectUpdateResult | null => {
    const generation = String(object.metadata?.generation ?? 1);
    if (update.expectedVersion === null || update.expectedVersion === generation) return null;
    return { ok: false, reason: "conflict", expected: update.expectedVersion, current: generation };
  };

  /**
   * One try of an update (issue 12's apply and shadow): the job must still be at the spec version the caller
   * read (metadata.generation, which status writes leave alone), else a conflict naming the version now;
   * then one merge patch carrying the resourceVersion just read, so the API server refuses it (409) if
   * anything wrote in between. Null after such a 409: read again and check again.
   */
  const tryUpdate = async (ref: JobRef, update: JobObjectUpdate): Promise<JobObjectUpdateResult | null> => {
    const object = await readJob(ref);
    if (!object) return { ok: false, reason: "not-found" };
    const stale = staleVersion(object, update);
    if (stale) return stale;
    const patched = await tolerateGone(() => patchAt(ref, jobUpdatePatch(object, update)));
    if (patched === "gone") return { ok: false, reason: "not-found" };
    if (!patched) return null;
    jobs.upsert(patched);
    return { ok: true, resourceVersion: String(patched.metadata?.generation ?? 1) };
  };

  const updateJobObject = async (ref: JobRef, update: JobObjectUpdate): Promise<JobObjectUpdateResult> => {
    for (let attempt = 0; attempt < CONFLICT_RETRIES; attempt += 1) {
      const result = await tryUpdate(ref, update);
      if (result) return result;
    }
    throw new Error(`update of ${jobKey(ref)}: still conflicting after ${CONFLICT_RETRIES} attempts`);
  };

  return {
    kind: "kubernetes",
    agentCredential: (agentUrl) => credentialByUrl.get(agentUrl) ?? null,
    informers: { jobs, pods, nodes, events },
    async start() {
      await Promise.all([jobs.start(), pods.start(), nodes.start(), events.start()]);
      unsubscribeMetrics ??= opts.nodeMetrics?.onChange(metricsChanged) ?? null;
      opts.nodeMetrics?.start();
    },
    async stop() {
      stopSignals?.();
      opts.nodeMetrics?.stop();
      unsubscribeMetrics?.();
      unsubscribeMetrics = null;
      for (const informer of [jobs, pods, nodes, events]) informer.stop();
    },
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    rawJobs: () => jobs.list(),
    async listJobs() {
      return jobs.list().flatMap((object) => toJob(object) ?? []);
    },
    async getJob(ref) {
      const object = jobObject(ref);
      if (!object) return null;
      await ensureFinalizer(object);
      return toJob(object);
    },
    updateJobStatus: replaceStatus,
    async setSuspended(ref, suspend) {
      try {
        const body = { spec: { runPolicy: { suspend } } };
        jobs.upsert(
          (await custom.patchNamespacedCustomObject({ ...JOB_API, ...ref, body }, MERGE_PATCH)) as never,
        );
        return true;
      } catch (error) {
        if (statusCode(error) === 404) return false;
        throw error;
      }
    },
    updateJobObject,
    async requestDeletion(ref) {
      await tolerate([404], () => custom.deleteNamespacedCustomObject({ ...JOB_API, ...ref }));
    },
    async finalizeDeletion(ref) {
      await tolerate([404], () => core.deleteNamespacedService({ ...ref }));
      servicesMade.delete(jobKey(ref));
      await removeFinalizer(ref);
    },
    async listPods(ref) {
      return jobPodViews(podIndex.jobPods(ref.namespace, ref.name));
    },
    createPod(input) {
      syncCapacity();
      const choose = (used: ReadonlyMap<string, number>) =>
        capacity.pick({
          used,
          gpus: input.gpus,
          avoid: input.avoidNodes,
          prefer: input.preferNode,
          instanceType: input.instanceType,
        });
      return reservations.pick(choose, input.gpus, async (node) => {
        await ensureService(input.job);
        const name = podName(input.job.ref.name, input.replicaSpec, input.index);
        const agentCredential = agentKey
          ? deriveAgentCredential(agentKey, { namespace: input.job.ref.namespace, name })
          : null;
        const body = buildPod({
          job: input.job,
          replicaSpec: input.replicaSpec,
          index: input.index,
          node,
          agentCredential,
        });
        try {
          const created = (await core.createNamespacedPod({
            namespace: input.job.ref.namespace,
            body,
          })) as V1Pod & KubeObject;
          pods.upsert(created);
          return podView(created);
        } catch (error) {
          // The pod of that name is still terminating: the next reconcile tries again.
          if (statusCode(error) === 409) return null;
          throw error;
        }
      });
    },
    async deletePod(ref, name) {
      const pod = pods.get(`${ref.namespace}/${name}`);
      const force = mustForceDelete(pod);
      await tolerate([404], () =>
        core.deleteNamespacedPod({
          namespace: ref.namespace,
          name,
          ...(force ? { gracePeriodSeconds: 0 } : {}),
        }),
      );
      if (pod) pods.remove(pod);
    },
    async listNodes() {
      return listNodes();
    },
    async recordEvent(ref, event) {
      const object = jobObject(ref);
      if (!writer || !object) return;
      const now = new Date(clock());
      await core.createNamespacedEvent({
        namespace: ref.namespace,
        body: {
          metadata: {
            name: `${ref.name}.${now.getTime().toString(16)}${Math.random().toString(16).slice(2, 6)}`,
          },
          involvedObject: {
            apiVersion: JOB_API_VERSION,
            kind: JOB_KIND,
            name: ref.name,
            namespace: ref.namespace,
            uid: object.metadata?.uid,
          },
          type: event.type,
          reason: event.reason,
          message: event.message,
          firstTimestamp: now,
          lastTimestamp: now,
          count: 1,
          source: { component: "rebound-operator" },
          reportingComponent: "rebound-operator",
        },
      });
    },
    // This run's events only: a job resubmitted under the same name has a new uid (involvedObject.uid).
    async listEvents(ref) {
      const uid = jobObject(ref)?.metadata?.uid;
      if (!uid) return [];
      return events
        .list()
        .filter(
          (event) =>
            event.involvedObject?.namespace === ref.namespace &&
            event.involvedObject?.name === ref.name &&
            event.involvedObject?.uid === uid,
        )
        .map(toClusterEvent)
        .sort((a, b) => a.at - b.at);
    },
    // torch.distributed's store listens on rank 0's pod; each pod has its own network namespace.
    async rendezvous(rank0) {
      const pod = pods.get(`${rank0.namespace}/${rank0.name}`);
      const addr = pod?.status?.podIP ?? `${rank0.name}.${rank0.job}.${rank0.namespace}.svc`;
      return { addr, port: String(opts.masterPort ?? 29500) };
    },
    // The names go into the pods/log URL path: checked first, so no `..` or `/` can point it elsewhere. A
    // pod already deleted has no log to read ("", as on the local back end).
    async podLogs(ref, pod, tailLines) {
      const namespace = requireName("namespace", ref.namespace);
      const name = requireName("pod", pod);
      try {
        return await core.readNamespacedPodLog({ namespace, name, tailLines });
      } catch (error) {
        if (statusCode(error) === 404) return "";
        throw error;
      }
    },
    // The same names check; the lines with the runtime's timestamps, from the attempt's start (rank-output.ts).
    async rankOutput(ref, pod, rank) {
      const namespace = requireName("namespace", ref.namespace);
      const name = requireName("pod", pod);
      const read: PodLogRead = (params) =>
        core
          .readNamespacedPodLog({ namespace, name, timestamps: true, ...params })
          .catch((error: unknown) => {
            if (statusCode(error) === 404) return "";
            throw error;
          });
      return rankOutputFromPodLog({ read, rank, now: Date.now });
    },
  };
}
