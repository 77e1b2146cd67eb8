import { CustomObjectsApi, type KubeConfig } from "@kubernetes/client-node";
import { KUEUE_GROUP, KUEUE_VERSION } from "./kueue/names";

/**
 * Whether Kueue (HyperPod task governance's scheduler) can be used here: its Workload API is served and the
 * operator may list Workloads (deploy/rbac/operator/kueue-cluster-role.yaml). Otherwise the operator admits
 * no job through Kueue: jobs run as HyperPod runs them without task governance, whatever their labels say.
 */
export async function kueueInstalled(kubeConfig: KubeConfig): Promise<boolean> {
  try {
    await kubeConfig
      .makeApiClient(CustomObjectsApi)
      .listClusterCustomObject({ group: KUEUE_GROUP, version: KUEUE_VERSION, plural: "workloads", limit: 1 });
    return true;
  } catch (error) {
    const code = (error as { code?: number }).code;
    if (code === 404 || code === 403) return false;
    throw error;
  }
}
