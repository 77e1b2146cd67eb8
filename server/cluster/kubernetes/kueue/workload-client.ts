import { CustomObjectsApi, type KubeConfig, PatchStrategy, setHeaderOptions } from "@kubernetes/client-node";
import type { Logger } from "@/server/log";
import { createInformer, type KubeObject, type ObjectList } from "../informer";
import { KUEUE_PLURALS } from "./client";
import { KUEUE_GROUP, KUEUE_VERSION } from "./names";
import { type Condition, WORKLOAD_FINALIZER, type WorkloadObject } from "./workload";

/**
 * The operator's access to Kueue for its external-framework integration: caches (informers) of Workloads,
 * ResourceFlavors and WorkloadPriorityClasses, and the writes jobframework makes on a Workload.
 */
export type FlavorObject = { metadata?: { name?: string }; spec?: { nodeLabels?: Record<string, string> } };
export type PriorityClassObject = { metadata?: { name?: string }; value?: number };

export type KueueWorkloads = {
  start(): Promise<void>;
  stop(): void;
  /** Calls `listener` with the owning job's key (`<namespace>/<name>`) whenever a Workload changes. */
  onChange(listener: (jobKey: string) => void): () => void;
  /** Workloads whose controlling owner is this job name in this namespace (any run of it). */
  ownedBy(namespace: string, jobName: string): WorkloadObject[];
  get(namespace: string, name: string): WorkloadObject | undefined;
  byUid(uid: string): WorkloadObject | undefined;
  flavor(name: string): FlavorObject | undefined;
  priorityClasses(): PriorityClassObject[];
  create(workload: WorkloadObject): Promise<WorkloadObject>;
  /** Replaces the conditions and clears the admission (jobframework's requeue of an evicted Workload). */
  clearAdmission(workload: WorkloadObject, conditions: Condition[]): Promise<void>;
  /** Sets one condition (e.g. Finished) with server-side apply, as jobframework's UpdateStatus does. */
  setCondition(workload: WorkloadObject, condition: Condition): Promise<void>;
  /** Drops Kueue's resource-in-use finalizer and deletes the Workload. */
  remove(workload: WorkloadObject): Promise<void>;
};

const MERGE = setHeaderOptions("Content-Type", PatchStrategy.MergePatch);
const APPLY = setHeaderOptions("Content-Type", PatchStrategy.ServerSideApply);
const api = (plural: string) => ({ group: KUEUE_GROUP, version: KUEUE_VERSION, plural });
const notFound = (error: unknown): boolean => (error as { code?: number })?.code === 404;

const ownerName = (workload: WorkloadObject): string | undefined =>
  workload.metadata.ownerReferences?.find((ref) => ref.controller)?.name;

export function createKueueWorkloads(opts: { kubeConfig: KubeConfig; log: Logger }): KueueWorkloads {
  const listeners = new Set<(jobKey: string) => void>();
  const custom = opts.kubeConfig.makeApiClient(CustomObjectsApi);
  const common = { kubeConfig: opts.kubeConfig, log: opts.log };
  const informer = <T extends KubeObject>(plural: string, onEvent?: (object: T | null) => void) =>
    createInformer<T>({
      ...common,
      name: `kueue-${plural}`,
      watchPath: `/apis/${KUEUE_GROUP}/${KUEUE_VERSION}/${plural}`,
      list: async () => (await custom.listClusterCustomObject(api(plural))) as ObjectList<T>,
      onEvent: (_type, object) => onEvent?.(object),
    });
  const workloads = informer<WorkloadObject & KubeObject>(KUEUE_PLURALS.Workload, (workload) => {
    const owner = workload ? ownerName(workload) : undefined;
    if (!workload || !owner) return;
    for (const listener of listeners) listener(`${workload.metadata.namespace}/${owner}`);
  });
  const flavors = informer<FlavorObject & KubeObject>(KUEUE_PLURALS.ResourceFlavor);
  const classes = informer<PriorityClassObject & KubeObject>(KUEUE_PLURALS.WorkloadPriorityClass);
  const wl = api(KUEUE_PLURALS.Workload);
  return {
    async start() {
      await Promise.all([workloads.start(), flavors.start(), classes.start()]);
    },
    stop() {
      for (const each of [workloads, flavors, classes]) each.stop();
    },
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    ownedBy: (namespace, jobName) =>
      workloads
        .list()
        .filter((workload) => workload.metadata.namespace === namespace && ownerName(workload) === jobName),
    get: (namespace, name) => workloads.get(`${namespace}/${name}`),
    byUid: (uid) => workloads.list().find((workload) => workload.metadata.uid === uid),
    flavor: (name) => flavors.get(name),
    priorityClasses: () => classes.list(),
    async create(workload) {
      const created = (await custom.createNamespacedCustomObject({
        ...wl,
        namespace: workload.metadata.namespace,
        body: workload,
      })) as WorkloadObject & KubeObject;
      workloads.upsert(created);
      return created;
    },
    async clearAdmission(workload, conditions) {
      const body = {
        metadata: { resourceVersion: workload.metadata.resourceVersion },
        status: { admission: null, conditions },
      };
      const ref = { ...wl, namespace: workload.metadata.namespace, name: workload.metadata.name };
      const patched = (await custom.patchNamespacedCustomObjectStatus(
        { ...ref, body },
        MERGE,
      )) as WorkloadObject & KubeObject;
      workloads.upsert(patched);
    },
    async setCondition(workload, condition) {
      const body = {
        apiVersion: workload.apiVersion,
        kind: workload.kind,
        metadata: { name: workload.metadata.name, namespace: workload.metadata.namespace },
        status: { conditions: [condition] },
      };
      const ref = { ...wl, namespace: workload.metadata.namespace, name: workload.metadata.name };
      const manager = `kueue-job-controller-${condition.type}`;
      await custom.patchNamespacedCustomObjectStatus(
        { ...ref, body, fieldManager: manager, force: true },
        APPLY,
      );
    },
    async remove(workload) {
      const ref = { ...wl, namespace: workload.metadata.namespace, name: workload.metadata.name };
      try {
        const finalizers = (workload.metadata.finalizers ?? []).filter((name) => name !== WORKLOAD_FINALIZER);
        const body = { metadata: { finalizers } };
        await custom.patchNamespacedCustomObject({ ...ref, body }, MERGE);
        await custom.deleteNamespacedCustomObject(ref);
      } catch (error) {
        if (!notFound(error)) throw error;
      }
      workloads.remove(workload);
    },
  };
}
