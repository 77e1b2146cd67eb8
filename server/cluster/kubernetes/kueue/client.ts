import {
  CoreV1Api,
  CustomObjectsApi,
  type KubeConfig,
  PatchStrategy,
  setHeaderOptions,
} from "@kubernetes/client-node";
import { FIELD_MANAGER, KUEUE_GROUP, KUEUE_VERSION, MANAGED_SELECTOR } from "./names";

/**
 * The calls the Kueue sync makes: list the objects Rebound manages, server-side apply one, delete one. Behind a
 * small type so the sync is plain code over it.
 */
export type ManagedKind =
  | "Namespace"
  | "ResourceFlavor"
  | "ClusterQueue"
  | "Cohort"
  | "LocalQueue"
  | "WorkloadPriorityClass";

export type LiveObject = {
  metadata?: { name?: string; namespace?: string; labels?: Record<string, string> };
  [field: string]: unknown;
};

export type ApplyObject = { kind: ManagedKind; metadata: { name: string; namespace?: string } };

export type KueueApi = {
  listManaged(kind: ManagedKind): Promise<LiveObject[]>;
  apply(object: ApplyObject): Promise<void>;
  remove(kind: Exclude<ManagedKind, "Namespace">, ref: { name: string; namespace?: string }): Promise<void>;
};

export const KUEUE_PLURALS = {
  ResourceFlavor: "resourceflavors",
  ClusterQueue: "clusterqueues",
  Cohort: "cohorts",
  LocalQueue: "localqueues",
  WorkloadPriorityClass: "workloadpriorityclasses",
  Workload: "workloads",
} as const;

const APPLY = setHeaderOptions("Content-Type", PatchStrategy.ServerSideApply);
const apply = { fieldManager: FIELD_MANAGER, force: true } as const;

const notFound = (error: unknown): boolean => (error as { code?: number })?.code === 404;

export function createKueueApi(kubeConfig: KubeConfig): KueueApi {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const custom = kubeConfig.makeApiClient(CustomObjectsApi);
  return {
    async listManaged(kind) {
      if (kind === "Namespace") {
        const { items } = await core.listNamespace({ labelSelector: MANAGED_SELECTOR });
        return items as LiveObject[];
      }
      const list = (await custom.listClusterCustomObject({
        group: KUEUE_GROUP,
        version: KUEUE_VERSION,
        plural: KUEUE_PLURALS[kind],
        labelSelector: MANAGED_SELECTOR,
      })) as { items?: LiveObject[] };
      return list.items ?? [];
    },
    async apply(object) {
      const { name, namespace } = object.metadata;
      if (object.kind === "Namespace") {
        await core.patchNamespace({ name, body: object, ...apply }, APPLY);
        return;
      }
      const target = { group: KUEUE_GROUP, version: KUEUE_VERSION, plural: KUEUE_PLURALS[object.kind] };
      if (namespace)
        await custom.patchNamespacedCustomObject(
          { ...target, namespace, name, body: object, ...apply },
          APPLY,
        );
      else await custom.patchClusterCustomObject({ ...target, name, body: object, ...apply }, APPLY);
    },
    async remove(kind, ref) {
      const target = {
        group: KUEUE_GROUP,
        version: KUEUE_VERSION,
        plural: KUEUE_PLURALS[kind],
        name: ref.name,
      };
      try {
        if (ref.namespace) await custom.deleteNamespacedCustomObject({ ...target, namespace: ref.namespace });
        else await custom.deleteClusterCustomObject(target);
      } catch (error) {
        if (!notFound(error)) throw error;
      }
    },
  };
}
