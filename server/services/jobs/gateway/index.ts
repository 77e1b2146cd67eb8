import "server-only";
import { env } from "@/env";
import { createLogger } from "@/server/log";
import { createOperatorSource } from "./operator-gateway";
import { type ClusterSource, SourceError } from "./types";

/**
 * The console process's one ClusterSource: the operator's live-state API when REBOUND_OPERATOR_URL is set
 * (npm start sets it; on a cluster, the operator's Service), else the cluster itself in console-only mode.
 */
let source: Promise<ClusterSource> | undefined;

async function consoleOnly(): Promise<ClusterSource> {
  const { loadKubeConfig } = await import("@/server/cluster/kubernetes/config");
  const { createKubernetesBackend } = await import("@/server/cluster/kubernetes/backend");
  const { createConsoleView, detectClusterMode } = await import("@/server/cluster/kubernetes/console-view");
  const { createConsoleOnlySource } = await import("./console-only-gateway");
  const kubeConfig = loadKubeConfig(env.REBOUND_KUBECONFIG);
  const backend = await createKubernetesBackend({
    kubeConfig,
    log: createLogger({ service: "rebound-console", component: "kubernetes" }),
    mode: "console",
  });
  await backend.start();
  return createConsoleOnlySource(createConsoleView(backend, await detectClusterMode(kubeConfig)), backend);
}

function unavailable(): ClusterSource {
  const fail = async (): Promise<never> => {
    throw new SourceError(503, "no cluster to read: set REBOUND_OPERATOR_URL, or REBOUND_CLUSTER=kubernetes");
  };
  return {
    mode: "local",
    jobs: fail,
    job: fail,
    nodes: fail,
    logs: fail,
    rankOutput: fail,
    act: fail,
    injectFault: fail,
    delete: fail,
    applyRunPolicy: fail,
    setShadowPolicy: fail,
    history: fail,
  };
}

export function getClusterSource(): Promise<ClusterSource> {
  source ??= (async () => {
    if (env.REBOUND_OPERATOR_URL)
      return createOperatorSource({
        baseUrl: env.REBOUND_OPERATOR_URL.replace(/\/$/, ""),
        mode: env.REBOUND_CLUSTER === "kubernetes" ? "kubernetes" : "local",
      });
    if (env.REBOUND_CLUSTER === "kubernetes") return consoleOnly();
    return unavailable();
  })().catch((error: unknown) => {
    source = undefined;
    throw error;
  });
  return source;
}
