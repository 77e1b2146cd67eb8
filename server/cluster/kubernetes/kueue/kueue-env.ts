import { CustomObjectsApi } from "@kubernetes/client-node";
import { installKueueCrds } from "@/e2e/kube/kueue";
import { type KueueProcess, startKueue } from "@/e2e/kube/kueue-process";
import { type KubeEnv, startKubeEnv } from "../testing/kube-env";
import { KUEUE_GROUP, KUEUE_VERSION } from "./names";

/**
 * For the Kueue tests: the Kubernetes test environment (real apiserver + KWOK) with Kueue's CRDs, and the real
 * Kueue controller running against it unless `controller: false`.
 */
export type KueueEnv = KubeEnv & {
  kueue: KueueProcess | null;
  custom: CustomObjectsApi;
  /** Reads a Kueue object (cluster-scoped without namespace); null when it does not exist. */
  read(plural: string, name: string, namespace?: string): Promise<Record<string, unknown> | null>;
};

export async function startKueueEnv(opts: {
  controller: boolean;
  /** Kueue's fair sharing (its Configuration's fairSharing.enable); default true. */
  fairSharing?: boolean;
  /** Our HyperPodPyTorchJob CRD too (jobs own their Workloads). */
  jobCrd?: boolean;
  nodes?: string[];
  gpusPerNode?: number;
  log?: (line: string) => void;
}): Promise<KueueEnv> {
  const env = await startKubeEnv({
    nodes: opts.nodes ?? [],
    gpusPerNode: opts.gpusPerNode ?? 8,
    namespaces: [],
    crd: opts.jobCrd ?? false,
    log: opts.log,
  });
  try {
    const { cluster } = env;
    const kueue = opts.controller
      ? await startKueue({ cluster, log: opts.log, fairSharing: opts.fairSharing })
      : null;
    if (!kueue) await installKueueCrds(cluster);
    const custom = env.kubeConfig.makeApiClient(CustomObjectsApi);
    const read = async (plural: string, name: string, namespace?: string) => {
      const api = { group: KUEUE_GROUP, version: KUEUE_VERSION, plural, name };
      try {
        const object = namespace
          ? await custom.getNamespacedCustomObject({ ...api, namespace })
          : await custom.getClusterCustomObject(api);
        return object as Record<string, unknown>;
      } catch (error) {
        if ((error as { code?: number }).code === 404) return null;
        throw error;
      }
    };
    return {
      ...env,
      kueue,
      custom,
      read,
      async stop() {
        await kueue?.stop();
        await env.stop();
      },
    };
  } catch (error) {
    await env.stop();
    throw error;
  }
}
