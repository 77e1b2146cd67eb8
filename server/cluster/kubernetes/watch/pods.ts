import type { CoreV1Api, V1Pod } from "@kubernetes/client-node";
import { deriveAgentCredential } from "@/server/cluster/agent-credential";
import { requireName } from "@/server/cluster/names";
import type { ClusterBackend, ClusterPod, CreatePodInput, JobRef } from "@/server/cluster/types";
import { statusCode, tolerate, type WatchSettings } from "../api-calls";
import { createInformer, type Informer, type KubeObject, type ObjectList } from "../informer";
import { buildPod, LABEL_JOB, podName, toClusterPod } from "../objects";
import { createPodIndex, type PodIndex } from "../pod-index";
import { type PodLogRead, rankOutputFromPodLog } from "../rank-output";

export type PodWatch = {
  readonly informer: Informer<V1Pod & KubeObject>;
  /** The store by job and the GPUs in use per node (pod-index.ts). */
  readonly index: PodIndex;
  get(namespace: string, name: string): (V1Pod & KubeObject) | undefined;
  /** The job's pods: the same frozen array until one of them changes. */
  jobPods(ref: JobRef): readonly ClusterPod[];
  /** The credential of the pod at that agent URL (null: no key, or no such pod seen). */
  agentCredential(agentUrl: string): string | null;
  /** Creates the pod on `node`; null while a pod of that name is still terminating. */
  create(input: CreatePodInput, node: string): Promise<ClusterPod | null>;
  /** Deletes the pod, at once when `force` says its node cannot confirm the end (gracefully otherwise). */
  delete(ref: JobRef, name: string, force: (pod: V1Pod | undefined) => boolean): Promise<void>;
  logs(ref: JobRef, pod: string, tailLines: number): Promise<string>;
  rankOutput: NonNullable<ClusterBackend["rankOutput"]>;
};

/**
 * Every pod, not only the jobs': placement counts the GPUs that other pods hold on a node. Indexed by job
 * and GPUs per node as the store changes; each stored object is converted once (it is replaced, never
 * changed, when its resourceVersion moves).
 */
export function createPodWatch(opts: {
  settings: WatchSettings;
  core: CoreV1Api;
  agentPort: number;
  /** The operator's agent key (server/cluster/agent-credential.ts); null: pods get no credential. */
  agentKey: Buffer | null;
  /** A job's pod changed (null: a pod went and its job is not known). */
  emit: (ref: JobRef | null) => void;
  /** The GPUs held on that node changed. */
  onUsage: (node: string) => void;
}): PodWatch {
  const { core, agentPort, agentKey, emit } = opts;
  const podIndex = createPodIndex({ onUsage: opts.onUsage });
  const podViews = new WeakMap<V1Pod, ClusterPod>();
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
    ...opts.settings,
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

  return {
    informer: pods,
    index: podIndex,
    get: (namespace, name) => pods.get(`${namespace}/${name}`),
    jobPods: (ref) => jobPodViews(podIndex.jobPods(ref.namespace, ref.name)),
    agentCredential: (agentUrl) => credentialByUrl.get(agentUrl) ?? null,
    async create(input, node) {
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
    },
    async delete(ref, name, force) {
      const pod = pods.get(`${ref.namespace}/${name}`);
      const now = force(pod);
      await tolerate([404], () =>
        core.deleteNamespacedPod({
          namespace: ref.namespace,
          name,
          ...(now ? { gracePeriodSeconds: 0 } : {}),
        }),
      );
      if (pod) pods.remove(pod);
    },
    // The names go into the pods/log URL path: checked first, so no `..` or `/` can point it elsewhere. A
    // pod already deleted has no log to read ("", as on the local back end).
    async logs(ref, pod, tailLines) {
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
