import type { loadKubeConfig } from "@/server/cluster/kubernetes/config";
import type { ClusterBackend } from "@/server/cluster/types";
import type { Db } from "@/server/db/client";
import type { Logger } from "@/server/log";
import { loadGovernanceConfig } from "@/server/store/governance/config";
import { createLocalAdmission } from "./local";
import type { AdmissionGate } from "./types";

export type { AdmissionGate, AdmissionVerdict } from "./types";

/** The cluster's KubeConfig (named through config.ts: @kubernetes/client-node stays in server/cluster/kubernetes). */
type KubeConfig = ReturnType<typeof loadKubeConfig>;

/**
 * On Kubernetes, Kueue's admission (kueue.ts) with the Postgres → Kueue sync, where Kueue is installed;
 * without Kueue none (jobs run as HyperPod runs them without task governance).
 */
async function kueueGate(opts: {
  db: Db;
  log: Logger;
  kubeConfig: KubeConfig;
  backend: ClusterBackend;
}): Promise<AdmissionGate | null> {
  const { kueueInstalled } = await import("@/server/cluster/kubernetes/kueue-installed");
  if (!(await kueueInstalled(opts.kubeConfig))) {
    opts.log.info("Kueue is not installed: jobs are admitted without task governance");
    return null;
  }
  const { createKueueApi } = await import("@/server/cluster/kubernetes/kueue/client");
  const { capacityOfNodes, startKueueSync } = await import("@/server/cluster/kubernetes/kueue/sync");
  const { createKueueWorkloads } = await import("@/server/cluster/kubernetes/kueue/workload-client");
  const { createKueueGate } = await import("./kueue");
  const sync = startKueueSync({
    load: () => loadGovernanceConfig(opts.db),
    // Sizes the cohort's own quota (idle resource sharing) by the healthy nodes.
    capacity: async () => capacityOfNodes(await opts.backend.listNodes()),
    api: createKueueApi(opts.kubeConfig),
    log: opts.log,
  });
  return createKueueGate({
    workloads: createKueueWorkloads({ kubeConfig: opts.kubeConfig, log: opts.log }),
    log: opts.log,
    sync,
  });
}

/**
 * The admission gate for the back end the operator drives: on the local back end Rebound's own admission
 * (local.ts); on Kubernetes, Kueue's (kueueGate above).
 */
export async function createAdmissionGate(opts: {
  kind: "local" | "kubernetes";
  backend: ClusterBackend;
  db: Db;
  log: Logger;
  /** The cluster's (Kubernetes only). */
  kubeConfig?: KubeConfig;
}): Promise<AdmissionGate | null> {
  const log = opts.log.child({ component: "admission" });
  if (opts.kind === "local") return createLocalAdmission({ db: opts.db, backend: opts.backend, log });
  return opts.kubeConfig
    ? kueueGate({ db: opts.db, log, kubeConfig: opts.kubeConfig, backend: opts.backend })
    : null;
}
