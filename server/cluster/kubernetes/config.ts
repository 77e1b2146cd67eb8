import { KubeConfig } from "@kubernetes/client-node";

/**
 * Credentials for the API server: the given kubeconfig file, else the usual rules (KUBECONFIG, then
 * ~/.kube/config, then the pod's in-cluster service account).
 */
export function loadKubeConfig(file?: string): KubeConfig {
  const config = new KubeConfig();
  if (file) config.loadFromFile(file);
  else config.loadFromDefault();
  if (!config.getCurrentCluster()) {
    throw new Error(
      file
        ? `kubeconfig ${file} names no current cluster`
        : "no Kubernetes credentials found: set REBOUND_KUBECONFIG or KUBECONFIG, or run in a cluster",
    );
  }
  return config;
}
