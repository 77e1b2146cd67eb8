import { CoreV1Api, CustomObjectsApi, type KubeConfig, type V1Pod } from "@kubernetes/client-node";
import { parse } from "yaml";
import { loadKubeConfig } from "@/server/cluster/kubernetes/config";
import { createInformer, type Informer, type KubeObject } from "@/server/cluster/kubernetes/informer";
import { LABEL_JOB } from "@/server/cluster/kubernetes/objects";
import { installCrd, kwokNode, setNodeHealth, waitUntil } from "@/server/cluster/kubernetes/testing/kube-env";
import type { JobRef } from "@/server/cluster/types";
import { JOB_GROUP, JOB_PLURAL, JOB_VERSION } from "@/server/domain/job-spec/job-spec.schema";
import { inParallel } from "@/server/in-parallel";
import type { Logger } from "@/server/log";

/** The bench's own Kubernetes calls, as the admin: set-up, the job, node health, and a watch on the job's pods. */
export type BenchKube = {
  kubeConfig: KubeConfig;
  setUp(input: { namespaces: string[]; nodes: string[]; gpusPerNode: number }): Promise<void>;
  createJob(yaml: string): Promise<JobRef>;
  readJob(ref: JobRef): Promise<BenchJob>;
  setNodeHealth(node: string, health: string): Promise<void>;
  watchPods(log: Logger): Promise<PodWatch>;
  /** The job's Warning events' messages (the operator's restart decisions), oldest first. */
  jobWarnings(ref: JobRef): Promise<{ at: number; message: string }[]>;
};

export type BenchJob = {
  status?: {
    conditions?: { type: string; status: string; lastTransitionTime?: string }[];
    restartCount?: number;
  };
};

/** Each job pod name's instances (uid, node) in the order the watch first saw them, with when. */
export type PodSighting = { uid: string; node: string; seenAt: number };
export type PodWatch = {
  informer: Informer<V1Pod & KubeObject>;
  sightings(name: string): PodSighting[];
  stop(): void;
};

const JOB_API = { group: JOB_GROUP, version: JOB_VERSION, plural: JOB_PLURAL };
const CREATE_CONCURRENCY = 16;

export function benchKube(kubeconfigPath: string): BenchKube {
  const kubeConfig = loadKubeConfig(kubeconfigPath);
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const custom = kubeConfig.makeApiClient(CustomObjectsApi);

  const nodesReady = async (names: string[]) => {
    const { items } = await core.listNode({ labelSelector: "type=kwok" });
    const ready = new Set(
      items
        .filter((node) => node.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True"))
        .map((node) => node.metadata?.name),
    );
    return names.every((name) => ready.has(name));
  };

  return {
    kubeConfig,
    async setUp(input) {
      await installCrd(kubeConfig);
      for (const name of input.namespaces) await core.createNamespace({ body: { metadata: { name } } });
      await inParallel(input.nodes, CREATE_CONCURRENCY, (name) =>
        core.createNode({ body: kwokNode(name, input.gpusPerNode) }),
      );
      await waitUntil(`${input.nodes.length} KWOK nodes to be Ready`, () => nodesReady(input.nodes), 120_000);
    },
    async createJob(yaml) {
      const body = parse(yaml) as { metadata: { name: string; namespace: string } };
      await custom.createNamespacedCustomObject({ ...JOB_API, namespace: body.metadata.namespace, body });
      return { namespace: body.metadata.namespace, name: body.metadata.name };
    },
    readJob: (ref) => custom.getNamespacedCustomObject({ ...JOB_API, ...ref }) as Promise<BenchJob>,
    setNodeHealth: (node, health) => setNodeHealth(core, node, health),
    async jobWarnings(ref) {
      const events = await core.listNamespacedEvent({
        namespace: ref.namespace,
        fieldSelector: `involvedObject.name=${ref.name},type=Warning`,
      });
      return events.items
        .map((event) => ({
          at: new Date(event.lastTimestamp ?? event.firstTimestamp ?? 0).getTime(),
          message: event.message ?? "",
        }))
        .sort((a, b) => a.at - b.at);
    },
    async watchPods(log) {
      const seen = new Map<string, PodSighting[]>();
      const record = (pod: V1Pod | null) => {
        const name = pod?.metadata?.name;
        const uid = pod?.metadata?.uid;
        if (!name || !uid) return;
        const list = seen.get(name) ?? [];
        if (list.some((sighting) => sighting.uid === uid)) return;
        list.push({ uid, node: pod.spec?.nodeName ?? "", seenAt: Date.now() });
        seen.set(name, list);
      };
      const informer = createInformer<V1Pod & KubeObject>({
        name: "bench-pods",
        kubeConfig,
        log,
        watchPath: "/api/v1/pods",
        query: { labelSelector: LABEL_JOB },
        list: () => core.listPodForAllNamespaces({ labelSelector: LABEL_JOB }) as never,
        onEvent: (type, pod) => {
          if (type === "ADDED" || type === "MODIFIED") record(pod);
        },
      });
      await informer.start();
      for (const pod of informer.list()) record(pod);
      return { informer, sightings: (name) => seen.get(name) ?? [], stop: () => informer.stop() };
    },
  };
}
