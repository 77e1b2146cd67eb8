import path from "node:path";
import { type CoreV1Api, CustomObjectsApi, KubeConfig, KubernetesObjectApi } from "@kubernetes/client-node";
import { installKueueCrds } from "@/e2e/kube/kueue";
import { type KueueProcess, startKueue } from "@/e2e/kube/kueue-process";
import { kustomizationObjects } from "../install";
import { type KubeEnv, REPO_ROOT, startKubeEnv } from "../testing/kube-env";
import { KUEUE_GROUP, KUEUE_VERSION } from "./names";

/**
 * For the Kueue tests: the Kubernetes test environment (real apiserver + KWOK) with Kueue's CRDs, and the real
 * Kueue controller running against it unless `controller: false`.
 */
export type KueueEnv = KubeEnv & {
  kueue: KueueProcess | null;
  custom: CustomObjectsApi;
  /** The operator's service account with deploy/rbac/operator's rights only (a token of rebound-operator). */
  operatorKubeConfig: KubeConfig;
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
    namespaces: [SYSTEM],
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
    const operatorKubeConfig = await operatorIdentity(env.kubeConfig, env.core);
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
      operatorKubeConfig,
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

const SYSTEM = "rebound-system";
const OPERATOR = "rebound-operator";

/** Applies deploy/rbac/operator and returns a kubeconfig for the operator's service account. */
async function operatorIdentity(admin: KubeConfig, core: CoreV1Api): Promise<KubeConfig> {
  const api = KubernetesObjectApi.makeApiClient(admin);
  for (const object of kustomizationObjects(path.join(REPO_ROOT, "deploy/rbac/operator")))
    await api.create(object);
  const request = await core.createNamespacedServiceAccountToken({
    name: OPERATOR,
    namespace: SYSTEM,
    body: { spec: { audiences: [], expirationSeconds: 3600 } },
  });
  const token = request.status?.token;
  const cluster = admin.getCurrentCluster();
  if (!token || !cluster) throw new Error("no token for the operator's service account");
  const config = new KubeConfig();
  config.loadFromOptions({
    clusters: [cluster],
    users: [{ name: OPERATOR, token }],
    contexts: [{ name: OPERATOR, cluster: cluster.name, user: OPERATOR }],
    currentContext: OPERATOR,
  });
  return config;
}
